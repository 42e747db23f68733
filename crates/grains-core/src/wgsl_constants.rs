//! Constants shared by Rust and WGSL, written once: [`wgsl_constants!`] defines them in Rust and
//! a function that writes them as WGSL declarations, which the shader composer puts before
//! the kernels that read them (`generated/` files of grains-shaders, grains-gpu's control
//! kernels). So a word moved on one side is moved on the other.

/// Define integer constants and a function `$table() -> String` that declares each as a WGSL
/// `u32` of the same name and value.
///
/// ```ignore
/// wgsl_constants! { slot_words_wgsl;
///     /// Slots ever taken.
///     pub SLOT_TAKEN: usize = 0;
/// }
/// ```
#[macro_export]
macro_rules! wgsl_constants {
    ($table:ident; $($(#[$meta:meta])* $vis:vis $name:ident : $t:ty = $value:expr;)*) => {
        $($(#[$meta])* $vis const $name: $t = $value;)*

        /// The constants of this table as WGSL `u32` declarations.
        pub fn $table() -> String {
            let mut s = String::new();
            $(
                s.push_str(&format!(
                    "const {}: u32 = {}u;\n",
                    stringify!($name),
                    u32::try_from($name).expect("a WGSL constant is a u32")
                ));
            )*
            s
        }
    };
}

#[cfg(test)]
mod tests {
    crate::wgsl_constants! { example_wgsl;
        /// A word.
        pub(crate) FIRST: usize = 0;
        pub(crate) LAST: u32 = u32::MAX;
    }

    #[test]
    fn declares_each_constant_with_its_value() {
        assert_eq!(
            example_wgsl(),
            "const FIRST: u32 = 0u;\nconst LAST: u32 = 4294967295u;\n"
        );
        assert_eq!((FIRST, LAST), (0, u32::MAX));
    }
}
