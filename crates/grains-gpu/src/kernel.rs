//! One compute pipeline with its bindings reflected from the WGSL, bound by name.
//!
//! The WGSL kernels name their bindings after the CPU twins' parameters; binding indices are
//! the shader author's choice. Reflecting them here and binding by name means a renumbering
//! in `shaders/` cannot silently swap two buffers.

use std::collections::BTreeMap;

use crate::device::GpuContext;
use crate::error::GpuError;

pub use grains_shaders::{BindingInfo as Binding, BindingKind};

/// Parse `src` and reflect every binding it declares (grains-shaders' reflection: one for the
/// whole project). A bound global that is not a buffer is an error, since kernels bind buffers
/// only.
pub fn reflect(label: &str, src: &str) -> Result<(naga::Module, Vec<Binding>), GpuError> {
    let module = naga::front::wgsl::parse_str(src).map_err(|e| GpuError::Shader {
        label: label.to_string(),
        message: e.emit_to_string(src),
    })?;
    let bindings = grains_shaders::module_bindings(&module);
    let bound = module
        .global_variables
        .iter()
        .filter(|(_, g)| g.binding.is_some())
        .count();
    if bindings.len() != bound {
        return Err(GpuError::Shader {
            label: label.to_string(),
            message: "a binding is neither a uniform nor a storage buffer, nor an r32uint \
                      storage texture array"
                .to_string(),
        });
    }
    Ok((module, bindings))
}

/// How an array larger than a binding is bound ([`Kernel::bind_windows`]).
pub struct Windows<'a> {
    /// Bytes per window.
    pub window: u64,
    /// Bytes per buffer but the last (a whole number of windows); `u64::MAX` for one buffer.
    pub segment: u64,
    /// The array's buffers, in order.
    pub segments: Vec<&'a wgpu::Buffer>,
}

/// A compute pipeline and what it binds.
pub struct Kernel {
    pub label: String,
    pub pipeline: wgpu::ComputePipeline,
    pub layouts: Vec<wgpu::BindGroupLayout>,
    pub bindings: Vec<Binding>,
    /// `@workgroup_size` of the entry point.
    pub workgroup: [u32; 3],
    /// The WGSL it was built from, and its entry point: what [`Kernel::split`] composes again.
    pub source: String,
    pub entry: String,
}

impl Kernel {
    /// Build the pipeline of entry point `entry` of WGSL `src`.
    pub fn new(ctx: &GpuContext, label: &str, src: &str, entry: &str) -> Result<Kernel, GpuError> {
        let (module, bindings) = reflect(label, src)?;
        let ep = module
            .entry_points
            .iter()
            .find(|e| e.name == entry)
            .ok_or_else(|| GpuError::Shader {
                label: label.to_string(),
                message: format!("no entry point named \"{entry}\""),
            })?;
        let workgroup = ep.workgroup_size;
        let storage = bindings
            .iter()
            .filter(|b| b.kind.is_storage_buffer())
            .count() as u64;
        let textures = bindings.iter().filter(|b| b.kind.is_texture()).count() as u64;
        let checks = [
            (
                "storage buffers per shader stage",
                storage,
                ctx.limits.max_storage_buffers_per_shader_stage,
            ),
            (
                "storage textures per shader stage",
                textures,
                ctx.limits.max_storage_textures_per_shader_stage,
            ),
        ];
        for (what, needed, limit) in checks {
            if needed > limit as u64 {
                return Err(GpuError::KernelLimit {
                    kernel: label.to_string(),
                    what,
                    needed,
                    limit: limit as u64,
                });
            }
        }
        let n_groups = bindings.iter().map(|b| b.group + 1).max().unwrap_or(0);
        let dev = &ctx.device;
        let scope = dev.push_error_scope(wgpu::ErrorFilter::Validation);
        let layouts: Vec<wgpu::BindGroupLayout> = (0..n_groups)
            .map(|g| {
                let entries: Vec<wgpu::BindGroupLayoutEntry> = bindings
                    .iter()
                    .filter(|b| b.group == g)
                    .map(|b| {
                        let buffer = |ty| wgpu::BindingType::Buffer {
                            ty,
                            has_dynamic_offset: false,
                            min_binding_size: None,
                        };
                        // An array held in textures (`grains_shaders::texture_arrays`).
                        let texture = |access| wgpu::BindingType::StorageTexture {
                            access,
                            format: wgpu::TextureFormat::R32Uint,
                            view_dimension: wgpu::TextureViewDimension::D2Array,
                        };
                        let ty = match b.kind {
                            BindingKind::Uniform => buffer(wgpu::BufferBindingType::Uniform),
                            BindingKind::StorageRead => {
                                buffer(wgpu::BufferBindingType::Storage { read_only: true })
                            }
                            BindingKind::StorageReadWrite => {
                                buffer(wgpu::BufferBindingType::Storage { read_only: false })
                            }
                            BindingKind::TextureRead => {
                                texture(wgpu::StorageTextureAccess::ReadOnly)
                            }
                            BindingKind::TextureReadWrite => {
                                texture(wgpu::StorageTextureAccess::ReadWrite)
                            }
                        };
                        wgpu::BindGroupLayoutEntry {
                            binding: b.binding,
                            visibility: wgpu::ShaderStages::COMPUTE,
                            ty,
                            count: None,
                        }
                    })
                    .collect();
                dev.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some(label),
                    entries: &entries,
                })
            })
            .collect();
        let layout_refs: Vec<Option<&wgpu::BindGroupLayout>> = layouts.iter().map(Some).collect();
        let pl = dev.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(label),
            bind_group_layouts: &layout_refs,
            immediate_size: 0,
        });
        let sm = dev.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Wgsl(src.into()),
        });
        let pipeline = dev.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(label),
            layout: Some(&pl),
            module: &sm,
            entry_point: Some(entry),
            compilation_options: Default::default(),
            cache: None,
        });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(GpuError::Shader {
                label: label.to_string(),
                message: e.to_string(),
            });
        }
        Ok(Kernel {
            label: label.to_string(),
            pipeline,
            layouts,
            bindings,
            workgroup,
            source: src.to_string(),
            entry: entry.to_string(),
        })
    }

    /// The kernel with arrays `textures` held in storage textures
    /// (`grains_shaders::texture_arrays`: `chunk` elements a texture, `parts` textures) and
    /// arrays `splits` bound as windows of their buffers.
    pub fn variant(
        &self,
        ctx: &GpuContext,
        splits: &[grains_shaders::ArraySplit],
        textures: &[grains_shaders::ArraySplit],
    ) -> Result<Kernel, GpuError> {
        let shader = |e: grains_shaders::ShaderError| GpuError::Shader {
            label: self.label.clone(),
            message: e.to_string(),
        };
        let mut src = self.source.clone();
        if !textures.is_empty() {
            src = grains_shaders::texture_arrays(&self.label, &src, textures).map_err(shader)?;
        }
        src = grains_shaders::split_arrays(&self.label, &src, splits).map_err(shader)?;
        let parts: Vec<String> = splits
            .iter()
            .map(|s| format!("{} in {} windows", s.name, s.parts))
            .chain(
                textures
                    .iter()
                    .map(|s| format!("{} in {} textures", s.name, s.parts)),
            )
            .collect();
        let label = format!("{} ({})", self.label, parts.join(", "));
        Kernel::new(ctx, &label, &src, &self.entry)
    }

    /// Threads per workgroup.
    pub fn threads(&self) -> u32 {
        self.workgroup[0] * self.workgroup[1] * self.workgroup[2]
    }

    /// Bind groups from buffers named like the kernel's bindings; every binding must be given.
    pub fn bind(
        &self,
        ctx: &GpuContext,
        buffers: &BTreeMap<&str, &wgpu::Buffer>,
    ) -> Result<Vec<wgpu::BindGroup>, GpuError> {
        self.bind_windows(ctx, buffers, &BTreeMap::new(), &BTreeMap::new())
    }

    /// As [`Kernel::bind`], with each array of `windows` bound as windows of its buffers: the
    /// array's own binding the first, part `p` (`grains_shaders::part_name`) the one at `p`
    /// windows in. A part past the array's end (after its buffers were made smaller than the
    /// kernel's parts) is bound to the first window: no index reaches it. Each array of
    /// `textures` (held in storage textures) is bound as its textures' views, part `p` the
    /// `p`th (the first where there are fewer).
    pub fn bind_windows(
        &self,
        ctx: &GpuContext,
        buffers: &BTreeMap<&str, &wgpu::Buffer>,
        windows: &BTreeMap<&str, Windows<'_>>,
        textures: &BTreeMap<&str, Vec<&wgpu::TextureView>>,
    ) -> Result<Vec<wgpu::BindGroup>, GpuError> {
        let mut groups = Vec::new();
        for (g, layout) in self.layouts.iter().enumerate() {
            let mut entries = Vec::new();
            for b in self.bindings.iter().filter(|b| b.group == g as u32) {
                let (array, part) =
                    grains_shaders::parse_part(&b.name).unwrap_or((b.name.as_str(), 0));
                if let Some(views) = textures.get(array) {
                    let view = views.get(part as usize).or(views.first()).ok_or_else(|| {
                        GpuError::UnknownBinding {
                            kernel: self.label.clone(),
                            name: b.name.clone(),
                            group: b.group,
                            binding: b.binding,
                        }
                    })?;
                    entries.push(wgpu::BindGroupEntry {
                        binding: b.binding,
                        resource: wgpu::BindingResource::TextureView(view),
                    });
                    continue;
                }
                let buf = buffers.get(array).ok_or_else(|| GpuError::UnknownBinding {
                    kernel: self.label.clone(),
                    name: b.name.clone(),
                    group: b.group,
                    binding: b.binding,
                })?;
                let resource = match windows.get(array) {
                    Some(w) => {
                        let at = part as u64 * w.window;
                        let (seg, off) = match w.segments.get((at / w.segment) as usize) {
                            Some(seg) if at % w.segment < seg.size() => (*seg, at % w.segment),
                            _ => (w.segments[0], 0),
                        };
                        wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: seg,
                            offset: off,
                            size: wgpu::BufferSize::new(w.window.min(seg.size() - off)),
                        })
                    }
                    None => buf.as_entire_binding(),
                };
                entries.push(wgpu::BindGroupEntry {
                    binding: b.binding,
                    resource,
                });
            }
            groups.push(ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(&self.label),
                layout,
                entries: &entries,
            }));
        }
        Ok(groups)
    }
}

/// Run entry point `entry` of `src` once over buffers given by binding name, with `groups`
/// workgroups (split into rows as the passes expect), and read back the `outputs`. Every
/// buffer is created at exactly the size of its data, so kernels that bound themselves with
/// `arrayLength` see the array the caller meant. For parity harnesses and one-off checks.
pub fn run_once(
    ctx: &GpuContext,
    label: &str,
    src: &str,
    entry: &str,
    buffers: &[(&str, &[u8])],
    outputs: &[&str],
    groups: u32,
) -> Result<Vec<Vec<u8>>, GpuError> {
    let kernel = Kernel::new(ctx, label, src, entry)?;
    let dev = &ctx.device;
    let mut owned = BTreeMap::new();
    for (name, data) in buffers {
        let size = (data.len() as u64).max(4).next_multiple_of(4);
        ctx.check_buffer(name, size, 0)?;
        let buf = dev.create_buffer(&wgpu::BufferDescriptor {
            label: Some(name),
            size,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::UNIFORM
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        ctx.queue.write_buffer(&buf, 0, data);
        owned.insert(*name, buf);
    }
    let map: BTreeMap<&str, &wgpu::Buffer> = owned.iter().map(|(k, v)| (*k, v)).collect();
    let bind_groups = kernel.bind(ctx, &map)?;
    let scope = dev.push_error_scope(wgpu::ErrorFilter::Validation);
    let mut enc = dev.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&kernel.pipeline);
        for (i, g) in bind_groups.iter().enumerate() {
            pass.set_bind_group(i as u32, g, &[]);
        }
        let (x, y) = crate::program::split(groups, ctx.limits.max_compute_workgroups_per_dimension);
        pass.dispatch_workgroups(x, y, 1);
    }
    let mut sources = Vec::new();
    for name in outputs {
        let src = owned
            .get(name)
            .ok_or_else(|| GpuError::Readback(name.to_string()))?;
        sources.push((*name, src, src.size()));
    }
    let out = crate::device::read_back(ctx, enc, &sources);
    if let Some(e) = pollster::block_on(scope.pop()) {
        return Err(GpuError::Validation {
            context: label.to_string(),
            message: e.to_string(),
        });
    }
    out
}
