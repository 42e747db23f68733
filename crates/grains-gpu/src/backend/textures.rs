//! Arrays held in storage textures, where the storage buffers a shader stage binds reach less
//! than a kernel's arrays (`grains_shaders::texture_arrays`): lavapipe binds 32 storage
//! buffers of 128 MiB in a stage, 4 GiB, and 36 storage textures of up to 2 GiB besides.
//!
//! An array goes into textures when a kernel would otherwise bind more storage buffers than a
//! stage may ([`GpuBackend::build_ops`] moves the largest array of that kernel and tries
//! again), or when it is larger than [`GpuOptions::texture_limit`]. It stays there: its later
//! growth makes textures again. Each texture is `r32uint`, one word a texel, row-major over
//! its width, height and layers; every texture but the last holds the same whole number of
//! words (a multiple of each element size it is bound with), so a kernel picks the texture of
//! word `k` with `k < words` tests, as the windows of a buffer are picked.

use super::*;
use plan::lcm;

/// One array held in textures.
pub(super) struct TextureArray {
    /// The textures in order, each with its two-dimensional array view.
    pub(super) parts: Vec<(wgpu::Texture, wgpu::TextureView)>,
    /// Words each texture but the last holds.
    pub(super) words: u64,
    /// Bytes of the array.
    pub(super) size: u64,
}

impl TextureArray {
    /// Bytes the textures take.
    pub(super) fn bytes(&self) -> u64 {
        self.parts.iter().map(|(t, _)| texels(t) * 4).sum()
    }
}

fn texels(t: &wgpu::Texture) -> u64 {
    let s = t.size();
    s.width as u64 * s.height as u64 * s.depth_or_array_layers as u64
}

impl GpuBackend {
    /// The shape of a full texture: width (a multiple of 64 texels, so that a row is a whole
    /// 256 bytes for copies), height and layers, within the adapter's dimensions and at most
    /// [`GpuBackend::buffer_bytes`] (what one allocation may take).
    fn texture_shape(&self) -> (u32, u32, u32) {
        let limits = self.ctx.limits();
        let dim = limits.max_texture_dimension_2d.max(64);
        let cap_texels = (self.buffer_bytes() / 4).max(64);
        let width = (dim as u64).min(cap_texels) / 64 * 64;
        let rows = (cap_texels / width).max(1);
        let height = rows.min(dim as u64);
        let layers = (rows / height).clamp(1, limits.max_texture_array_layers.max(1) as u64);
        (width as u32, height as u32, layers as u32)
    }

    /// Textures holding `size` bytes of array `name`, whose elements are bound `unit` words at
    /// a time (every texture but the last holds a multiple of `unit` words).
    pub(super) fn make_textures(
        &self,
        name: &str,
        size: u64,
        unit: u64,
    ) -> Result<TextureArray, GpuError> {
        let (width, height, layers) = self.texture_shape();
        let full = width as u64 * height as u64 * layers as u64;
        let words = full / unit * unit;
        if words == 0 {
            return Err(GpuError::BufferTooLarge {
                buffer: name.to_string(),
                size,
                limit_name: "max_buffer_size (one texture)",
                limit: self.buffer_bytes(),
                particles: self.n,
            });
        }
        let mut left = size.div_ceil(4).max(1);
        let mut parts = Vec::new();
        while left > 0 {
            let here = left.min(words);
            left -= here;
            let rows = here.div_ceil(width as u64);
            let (h, l) = if rows <= height as u64 {
                (rows as u32, 1)
            } else {
                (height, rows.div_ceil(height as u64) as u32)
            };
            let texture = self.ctx.device.create_texture(&wgpu::TextureDescriptor {
                label: Some(name),
                size: wgpu::Extent3d {
                    width,
                    height: h,
                    depth_or_array_layers: l,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::R32Uint,
                usage: wgpu::TextureUsages::STORAGE_BINDING
                    | wgpu::TextureUsages::COPY_SRC
                    | wgpu::TextureUsages::COPY_DST,
                view_formats: &[],
            });
            let view = texture.create_view(&wgpu::TextureViewDescriptor {
                dimension: Some(wgpu::TextureViewDimension::D2Array),
                ..Default::default()
            });
            parts.push((texture, view));
        }
        Ok(TextureArray { parts, words, size })
    }

    /// Write `data` (whole words) into textured array `a` from byte `offset`: each row's part
    /// at once, whole rows of a layer together.
    pub(super) fn write_textures(&self, a: &TextureArray, offset: u64, data: &[u8]) {
        let mut k = offset / 4;
        let mut at = 0usize;
        while at < data.len() {
            let p = (k / a.words) as usize;
            let Some((texture, _)) = a.parts.get(p) else {
                return;
            };
            let s = texture.size();
            let (w, h) = (s.width as u64, s.height as u64);
            let local = k - p as u64 * a.words;
            let (x, row) = (local % w, local / w);
            let (y, layer) = (row % h, row / h);
            // Words left to write in this texture: every texture but the last holds `words`,
            // and the texels past them are padding that no word lives in.
            let left = (((data.len() - at) / 4) as u64).min(a.words - local);
            let (width, rows) = if x == 0 && left >= w {
                (w, (left / w).min(h - y))
            } else {
                ((w - x).min(left), 1)
            };
            let n = (width * rows * 4) as usize;
            self.ctx.queue.write_texture(
                wgpu::TexelCopyTextureInfo {
                    texture,
                    mip_level: 0,
                    origin: wgpu::Origin3d {
                        x: x as u32,
                        y: y as u32,
                        z: layer as u32,
                    },
                    aspect: wgpu::TextureAspect::All,
                },
                &data[at..at + n],
                wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some((width * 4) as u32),
                    rows_per_image: None,
                },
                wgpu::Extent3d {
                    width: width as u32,
                    height: rows as u32,
                    depth_or_array_layers: 1,
                },
            );
            at += n;
            k += width * rows;
        }
    }

    /// The first `size` bytes of textured array `a`.
    pub(super) fn read_textures(
        &self,
        name: &str,
        a: &TextureArray,
        size: u64,
    ) -> Result<Vec<u8>, GpuError> {
        let mut enc = self.encoder();
        let mut copies = Vec::new();
        let mut left = size.div_ceil(4);
        for (texture, _) in &a.parts {
            if left == 0 {
                break;
            }
            let s = texture.size();
            let bytes = texels(texture) * 4;
            let buffer = self.ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(name),
                size: bytes,
                usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            enc.copy_texture_to_buffer(
                texture.as_image_copy(),
                wgpu::TexelCopyBufferInfo {
                    buffer: &buffer,
                    layout: wgpu::TexelCopyBufferLayout {
                        offset: 0,
                        bytes_per_row: Some(s.width * 4),
                        rows_per_image: Some(s.height),
                    },
                },
                s,
            );
            let here = left.min(a.words);
            left -= here;
            copies.push((buffer, here * 4));
        }
        let sources: Vec<(&str, &wgpu::Buffer, u64)> =
            copies.iter().map(|(b, n)| (name, b, *n)).collect();
        let out = crate::device::read_back(&self.ctx, enc, &sources)?;
        let mut bytes = out.concat();
        bytes.truncate(size as usize);
        Ok(bytes)
    }

    /// Copy textured array `old` into `new`, made for the same array (the same words a texture):
    /// texture by texture, the old extent at the same place, which keeps every word's index
    /// (a texture of one layer is rows from the top; one of several has the full height).
    pub(super) fn copy_textures(
        &self,
        enc: &mut wgpu::CommandEncoder,
        old: &TextureArray,
        new: &TextureArray,
    ) {
        for ((from, _), (to, _)) in old.parts.iter().zip(&new.parts) {
            let (a, b) = (from.size(), to.size());
            let extent = wgpu::Extent3d {
                width: a.width.min(b.width),
                height: a.height.min(b.height),
                depth_or_array_layers: a.depth_or_array_layers.min(b.depth_or_array_layers),
            };
            enc.copy_texture_to_texture(from.as_image_copy(), to.as_image_copy(), extent);
        }
    }

    /// Words of the element array `name` is bound with, the largest over the kernels (each
    /// view's element must be a whole number of words a texture).
    fn texture_unit(&self, host: &str) -> u64 {
        let mut unit = 1u64;
        for k in &self.program.kernels {
            for b in &k.bindings {
                if buffers::buffer_of(&b.name) == host && b.stride > 0 {
                    unit = lcm(unit, (b.stride as u64 / 4).max(1));
                }
            }
        }
        // The list's arrays are also bound under the chains' generic names.
        for (name, _, _, stride) in list_buffers(&self.world) {
            if name == host {
                unit = lcm(unit, (stride / 4).max(1));
            }
        }
        unit
    }

    /// Move array `host` from its buffers into textures, contents and all.
    pub(super) fn move_to_textures(&mut self, host: &'static str) -> Result<(), GpuError> {
        let size: u64 = self.segments(host).iter().map(|b| b.size()).sum();
        let bytes = self.read_bytes(host, size)?;
        let unit = self.texture_unit(host);
        let a = self.make_textures(host, size, unit)?;
        self.write_textures(&a, 0, &bytes);
        self.arrays.bufs.remove(host);
        self.arrays.more.remove(host);
        self.arrays.tex.insert(host, a);
        Ok(())
    }

    /// Array `host`'s bytes now held: in textures, or in buffers.
    pub(super) fn array_bytes(&self, host: &str) -> u64 {
        match self.arrays.tex.get(buffers::buffer_of(host)) {
            Some(a) => a.bytes(),
            None => self.segments(host).iter().map(|b| b.size()).sum(),
        }
    }

    /// Make a grown list array `name` of `size` bytes where it lives: textures for one held in
    /// textures, else buffers.
    pub(super) fn make_list_array(
        &self,
        name: &'static str,
        size: u64,
        stride: u64,
    ) -> Result<Grown, GpuError> {
        if self.arrays.tex.contains_key(name) {
            let unit = self.texture_unit(name);
            return Ok(Grown::Textures(self.make_textures(name, size, unit)?));
        }
        Ok(Grown::Buffers(self.make_array(name, size, stride)?))
    }
}

impl GpuBackend {
    /// Put a list array made anew in place of the old one (whose contents are dropped).
    pub(super) fn install(&mut self, name: &'static str, grown: Grown) {
        match grown {
            Grown::Buffers(segments) => self.set_array(name, segments),
            Grown::Textures(a) => {
                self.arrays.tex.insert(name, a);
            }
        }
    }
}

/// A list array made anew, before it replaces the old one.
pub(super) enum Grown {
    Buffers(Vec<wgpu::Buffer>),
    Textures(TextureArray),
}
