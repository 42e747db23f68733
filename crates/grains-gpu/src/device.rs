//! Adapter selection and the device, with its limits.

use crate::error::GpuError;

/// One adapter as `grains info` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdapterSummary {
    /// Adapter name, e.g. "NVIDIA GeForce RTX 4090" or "llvmpipe (LLVM 15.0.6, 256 bits)".
    pub name: String,
    /// Graphics API backend ("Vulkan", "Metal", ...).
    pub backend: String,
    /// Discrete GPU, integrated GPU, CPU, ...
    pub device_type: String,
    /// Driver name and version details.
    pub driver: String,
}

/// Which adapters [`GpuContext::new`] may pick.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AdapterRequest {
    /// A discrete or integrated GPU if there is one, else a virtual or other device, else a CPU
    /// implementation (lavapipe).
    #[default]
    Any,
    /// Only a hardware (discrete, integrated or virtual) GPU.
    HardwareOnly,
    /// Only a CPU implementation such as lavapipe (tests that must behave the same everywhere).
    CpuOnly,
}

/// One adapter named on the command line (`--adapter N|NAME`): its place in the list
/// [`list_adapters`] gives (and `grains info` prints), or a part of its name, in any case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AdapterChoice {
    Index(usize),
    Name(String),
}

impl std::str::FromStr for AdapterChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<AdapterChoice, String> {
        let s = s.trim();
        if s.is_empty() {
            return Err(
                "expected an adapter's number in `grains info`'s list, or a part of its name"
                    .into(),
            );
        }
        Ok(match s.parse() {
            Ok(i) => AdapterChoice::Index(i),
            Err(_) => AdapterChoice::Name(s.to_string()),
        })
    }
}

impl std::fmt::Display for AdapterChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AdapterChoice::Index(i) => write!(f, "{i}"),
            AdapterChoice::Name(n) => write!(f, "{n}"),
        }
    }
}

/// Only native compute APIs: GL has no storage buffers in every stage and no indirect compute
/// on all drivers (and probing it prints EGL noise on headless machines).
const BACKENDS: wgpu::Backends = wgpu::Backends::VULKAN
    .union(wgpu::Backends::METAL)
    .union(wgpu::Backends::DX12);

fn instance() -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = BACKENDS;
    // wgpu checks every indirect dispatch's arguments by running a one-workgroup kernel and
    // two barriers before it, even in release builds. Every pass of a step is dispatched
    // indirectly (control.wgsl freezes a batch by zeroing them), so that was a second dispatch
    // and two serialising barriers per pass (an H100's profile timed each pass that had
    // nothing to do at 12.5 us: 163 us of a 424 us million-sphere step). The arguments need no
    // check: `set_args` keeps x within the adapter's per-dimension limit, and y too, since the
    // host refuses a capacity whose workgroups exceed that limit squared (`check_groups`).
    // WGPU_VALIDATION_INDIRECT_CALL=1 restores it.
    desc.flags = (wgpu::InstanceFlags::from_build_config()
        - wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL)
        .with_env();
    wgpu::Instance::new(desc)
}

fn summary(info: &wgpu::AdapterInfo) -> AdapterSummary {
    AdapterSummary {
        name: info.name.clone(),
        backend: format!("{:?}", info.backend),
        device_type: format!("{:?}", info.device_type),
        driver: format!("{} {}", info.driver, info.driver_info)
            .trim()
            .to_string(),
    }
}

/// Every adapter wgpu can see, in the order it reports them.
pub fn list_adapters() -> Vec<AdapterSummary> {
    let inst = instance();
    pollster::block_on(inst.enumerate_adapters(BACKENDS))
        .iter()
        .map(|a| summary(&a.get_info()))
        .collect()
}

/// Rank of an adapter for [`AdapterRequest::Any`]: lower is preferred.
fn rank(t: wgpu::DeviceType) -> u32 {
    match t {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    }
}

/// A device and queue with the adapter's own limits.
#[derive(Clone)]
pub struct GpuContext {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    pub(crate) info: wgpu::AdapterInfo,
    pub(crate) limits: wgpu::Limits,
}

impl GpuContext {
    /// Open a device on the best adapter allowed by `req`.
    pub fn new(req: AdapterRequest) -> Result<GpuContext, GpuError> {
        let inst = instance();
        let adapters = pollster::block_on(inst.enumerate_adapters(BACKENDS));
        let mut candidates: Vec<wgpu::Adapter> = adapters
            .into_iter()
            .filter(|a| {
                let t = a.get_info().device_type;
                match req {
                    AdapterRequest::Any => true,
                    AdapterRequest::HardwareOnly => t != wgpu::DeviceType::Cpu,
                    AdapterRequest::CpuOnly => t == wgpu::DeviceType::Cpu,
                }
            })
            .filter(|a| {
                a.get_downlevel_capabilities().flags.contains(
                    wgpu::DownlevelFlags::COMPUTE_SHADERS
                        | wgpu::DownlevelFlags::INDIRECT_EXECUTION,
                )
            })
            .collect();
        candidates.sort_by_key(|a| rank(a.get_info().device_type));
        let adapter = candidates
            .into_iter()
            .next()
            .ok_or_else(|| GpuError::NoAdapter {
                detail: match req {
                    AdapterRequest::Any => String::new(),
                    AdapterRequest::HardwareOnly => " of hardware type".into(),
                    AdapterRequest::CpuOnly => " of CPU type".into(),
                } + &vulkan_hint(req),
            })?;
        GpuContext::open(adapter)
    }

    /// Open a device on the adapter `choice` names: by its place in [`list_adapters`]'s list,
    /// or the first whose name holds it (in any case). An adapter it does not name is refused
    /// with the list.
    pub fn chosen(choice: &AdapterChoice) -> Result<GpuContext, GpuError> {
        let inst = instance();
        let adapters = pollster::block_on(inst.enumerate_adapters(BACKENDS));
        let at = match choice {
            AdapterChoice::Index(i) => (*i < adapters.len()).then_some(*i),
            AdapterChoice::Name(n) => {
                let n = n.to_lowercase();
                adapters
                    .iter()
                    .position(|a| a.get_info().name.to_lowercase().contains(&n))
            }
        };
        let Some(at) = at else {
            let list: Vec<String> = adapters
                .iter()
                .enumerate()
                .map(|(i, a)| format!("{i}: {}", a.get_info().name))
                .collect();
            return Err(GpuError::UnknownAdapter {
                asked: choice.to_string(),
                list: if list.is_empty() {
                    "none".into()
                } else {
                    list.join(", ")
                },
            });
        };
        GpuContext::open(
            adapters
                .into_iter()
                .nth(at)
                .ok_or_else(|| GpuError::UnknownAdapter {
                    asked: choice.to_string(),
                    list: String::new(),
                })?,
        )
    }

    /// A device on `adapter`, with its own limits.
    fn open(adapter: wgpu::Adapter) -> Result<GpuContext, GpuError> {
        let info = adapter.get_info();
        // Ask for everything the adapter offers: the contact kernels bind a dozen storage
        // buffers and large scenes need big bindings, both beyond WebGPU's defaults.
        let limits = adapter.limits();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("grains"),
            required_limits: limits.clone(),
            // Timestamps, where the adapter has them, for `grains bench --profile`.
            required_features: adapter.features() & wgpu::Features::TIMESTAMP_QUERY,
            ..Default::default()
        }))
        .map_err(|e| GpuError::Device {
            adapter: info.name.clone(),
            message: e.to_string(),
        })?;
        Ok(GpuContext {
            device,
            queue,
            info,
            limits,
        })
    }

    /// Whether the adapter is a CPU implementation (lavapipe, WARP, SwiftShader).
    pub fn adapter_is_cpu(&self) -> bool {
        self.info.device_type == wgpu::DeviceType::Cpu
    }

    /// The adapter's name.
    pub fn adapter_name(&self) -> String {
        self.info.name.clone()
    }

    /// The adapter as `grains info` lists it.
    pub fn summary(&self) -> AdapterSummary {
        summary(&self.info)
    }

    /// The limits the device was opened with.
    pub fn limits(&self) -> &wgpu::Limits {
        &self.limits
    }

    /// Refuse a buffer of `size` bytes that the device could not allocate. One larger than a
    /// storage binding is bound as several windows (`Kernel::bind_windows`).
    pub fn check_buffer(&self, name: &str, size: u64, particles: usize) -> Result<(), GpuError> {
        let checks = [("max_buffer_size", self.limits.max_buffer_size)];
        for (limit_name, limit) in checks {
            if size > limit {
                return Err(GpuError::BufferTooLarge {
                    buffer: name.to_string(),
                    size,
                    limit_name,
                    limit,
                    particles,
                });
            }
        }
        Ok(())
    }
}

/// Copy `size` bytes from the start of each buffer into mapped staging memory and return them:
/// the one readback of the crate. The copies are recorded into `enc`, which is submitted, so
/// work recorded before them completes first.
pub fn read_back(
    ctx: &GpuContext,
    mut enc: wgpu::CommandEncoder,
    sources: &[(&str, &wgpu::Buffer, u64)],
) -> Result<Vec<Vec<u8>>, GpuError> {
    let dev = &ctx.device;
    let mut staging = Vec::new();
    for &(name, src, size) in sources {
        let size = size.min(src.size()).next_multiple_of(4);
        if size == 0 {
            staging.push((name, None));
            continue;
        }
        let dst = dev.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        enc.copy_buffer_to_buffer(src, 0, &dst, 0, size);
        staging.push((name, Some(dst)));
    }
    ctx.queue.submit([enc.finish()]);
    let mut out = Vec::new();
    for (name, dst) in staging {
        let Some(dst) = dst else {
            out.push(Vec::new());
            continue;
        };
        let (tx, rx) = std::sync::mpsc::channel();
        dst.map_async(wgpu::MapMode::Read, .., move |r| {
            let _ = tx.send(r);
        });
        dev.poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| GpuError::Validation {
                context: format!("reading {name}"),
                message: e.to_string(),
            })?;
        match rx.recv() {
            Ok(Ok(())) => {}
            _ => return Err(GpuError::Readback(name.to_string())),
        }
        let data = dst
            .get_mapped_range(..)
            .map_err(|_| GpuError::Readback(name.to_string()))?
            .to_vec();
        dst.unmap();
        out.push(data);
    }
    Ok(out)
}

/// Why Vulkan may list no adapter on a Linux machine (an H100 host with NVIDIA's driver but
/// without the loader's packages listed none): the loader `libvulkan.so.1` missing, or an
/// NVIDIA GPU whose Vulkan driver cannot load (its ICD needs glvnd's `libGLdispatch.so.0`).
/// Empty where neither can be seen.
fn vulkan_hint(req: AdapterRequest) -> String {
    if !cfg!(target_os = "linux") {
        return String::new();
    }
    let mut dirs: Vec<std::path::PathBuf> = std::env::var_os("LD_LIBRARY_PATH")
        .map(|v| std::env::split_paths(&v).collect())
        .unwrap_or_default();
    for d in [
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
        "/lib/x86_64-linux-gnu",
        "/lib/aarch64-linux-gnu",
        "/usr/lib64",
        "/usr/lib",
        "/lib64",
        "/lib",
        "/usr/local/lib",
    ] {
        dirs.push(d.into());
    }
    let found = |lib: &str| dirs.iter().any(|d| d.join(lib).exists());
    let nvidia = req != AdapterRequest::CpuOnly
        && std::path::Path::new("/proc/driver/nvidia/version").exists();
    no_adapter_hint(found("libvulkan.so.1"), nvidia, found("libGLdispatch.so.0"))
}

/// [`vulkan_hint`]'s message for what it found: whether the Vulkan loader is installed, an
/// NVIDIA driver is loaded, and glvnd's dispatch library is installed.
fn no_adapter_hint(loader: bool, nvidia: bool, glvnd: bool) -> String {
    if !loader {
        return "; the Vulkan loader libvulkan.so.1 is not in the usual library folders \
                (Debian and Ubuntu: apt-get install libvulkan1)"
            .into();
    }
    if nvidia && !glvnd {
        return "; an NVIDIA driver is loaded, but its Vulkan driver needs glvnd's \
                libGLdispatch.so.0, which is not installed (Debian and Ubuntu: libglvnd0 and \
                libegl1)"
            .into();
    }
    if nvidia {
        return "; an NVIDIA driver is loaded, but Vulkan lists no adapter for it: check that \
                its nvidia_icd.json is where the loader looks (/usr/share/vulkan/icd.d), or name \
                it in VK_DRIVER_FILES"
            .into();
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use super::no_adapter_hint;

    /// Each thing that can be missing is named, the loader first; nothing is said where all
    /// is there and no NVIDIA driver is loaded.
    #[test]
    fn a_missing_adapter_says_what_is_missing() {
        assert!(no_adapter_hint(false, true, true).contains("apt-get install libvulkan1"));
        assert!(no_adapter_hint(true, true, false).contains("libGLdispatch.so.0"));
        assert!(no_adapter_hint(true, true, true).contains("VK_DRIVER_FILES"));
        assert_eq!(no_adapter_hint(true, false, false), "");
        assert_eq!(no_adapter_hint(true, false, true), "");
    }
}
