#!/usr/bin/env bash
# The device check for a lent GPU machine (issue 11: "where the task is lent a GPU, run the same
# bench there and report the adapter and figures"), as one script so that it fits one call.
#
# Prepared here, run there: `bash benches/device_check.sh prepare` builds and strips the
# binaries into .dev/ (ignored) with the path the suite looks for scenes/ in; fetch the Vulkan
# loader into .gl/ (see the device tool's README: libvulkan1 and the glvnd libraries, libegl1
# libglvnd0 libopengl0 libgl1 libglx0 libgles2, which NVIDIA's ICD needs; with libvulkan1 alone
# wgpu finds no adapter), then run `bash benches/device_check.sh` with .dev and .gl carried.
# SMALL=1 rehearses it here on lavapipe at small sizes; BACKENDS=gpu leaves out the CPU rows;
# FILTER=name runs only the tests whose names hold it; DENSE="100 216" runs dense cubic
# lattices of that many spheres a side (2 steps each, after the tests) to see where the GPU step
# stops. Results go to $OUT (or /tmp/devout).
set -u
if [ "${1:-}" = prepare ]; then
    set -e
    cargo build --release -p grains-cli
    mkdir -p .dev
    strip -o .dev/grains target/release/grains
    cargo test --release --workspace --no-run --message-format=json 2>/dev/null |
        python3 -c 'import json, sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("executable") and m["target"]["name"] in ("all", "grains_gpu"):
        print(m["target"]["name"], m["executable"])' |
        while read -r name exe; do
            strip -o ".dev/$([ "$name" = all ] && echo all || echo gpu_unit)" "$exe"
        done
    echo "workspace_root=$PWD" >.dev/paths
    ls -la .dev
    exit 0
fi
OUT=${OUT:-/tmp/devout}
mkdir -p "$OUT"
B=${B:-.dev/grains}
if [ -z "${SMALL:-}" ]; then
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
    icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    [ -f $icd ] && export VK_DRIVER_FILES=$icd
    nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem --format=csv 2>&1 | tee "$OUT/info.txt"
    SIZES=20000,100000,1000000 BIG=10000000 STEPS=500 BIGSTEPS=100 T=16
else
    SIZES=2000,8000 BIG=30000 STEPS=20 BIGSTEPS=10 T=2
fi
# The test binary finds scenes/ and shaders/ at the path it was built in.
root=$(sed -n 's/^workspace_root=//p' .dev/paths 2>/dev/null)
if [ -n "$root" ] && [ ! -e "$root" ]; then mkdir -p "$(dirname "$root")" && ln -s "$PWD" "$root"; fi

step() { echo "=== $*"; }
step info; ls /usr/local/nvidia/share/vulkan/icd.d /etc/vulkan/icd.d /usr/share/vulkan/icd.d 2>&1; $B info 2>&1 | tee -a "$OUT/info.txt"
$B info 2>&1 | grep -q "no GPU adapter" && { VK_LOADER_DEBUG=error,warn,driver $B info 2>&1 | tail -30; ldconfig -p | grep -i "nvidia\|vulkan\|GLdispatch" | head; exit 1; }
step bench settle; timeout 150 $B bench --sizes $SIZES --steps $STEPS --backends ${BACKENDS:-gpu,cpu} --profile 2>&1 | tee "$OUT/bench_settle.txt"
step bench gas; timeout 60 $B bench --scene gas --sizes ${SIZES##*,} --steps $STEPS --backends ${BACKENDS:-gpu,cpu} 2>&1 | tee "$OUT/bench_gas.txt"
step bench big; timeout 90 $B bench --sizes $BIG --steps $BIGSTEPS --backends gpu 2>&1 | tee "$OUT/bench_big.txt"
step run settle; timeout 60 $B run scenes/settle.toml --backend gpu --out /tmp/settle-gpu 2>&1 | tr '\r' '\n' | grep -v "^ *[0-9.]*%\|steps/s.*ETA" | tail -25 | tee "$OUT/run_settle.txt"
step tests
CI=true GRAINS_REQUIRE_GPU=1 timeout 150 .dev/all --test-threads $T ${FILTER:-} >"$OUT/tests.txt" 2>&1
echo "suite rc=$?"
CI=true GRAINS_REQUIRE_GPU=1 timeout 60 .dev/gpu_unit --test-threads $T ${FILTER:-} >>"$OUT/tests.txt" 2>&1
echo "gpu unit rc=$?"
grep -E "^test result|FAILED|panicked" "$OUT/tests.txt" | head -40

# A dense cubic lattice of n^3 spheres at 0.995 diameters, settle_100k's law, in a walled box.
dense() {
    local n=$1 side
    side=$(python3 -c "print(round(0.0021 + $n * 0.00199, 4))")
    cat >"/tmp/dense$n.toml" <<TOML
[simulation]
steps = 2
dt = 1e-5
gravity = [0.0, 0.0, -9.81]
skin = 0.001
[domain]
min = [0.0, 0.0, 0.0]
max = [$side, $side, $side]
[[material]]
name = "glass"
density = 2500.0
young = 5.0e6
poisson = 0.3
[[particles]]
material = "glass"
radius = 0.001
lattice = { spacing = 0.00199, count = [$n, $n, $n], origin = [0.00105, 0.00105, 0.00105] }
[[wall]]
box = { min = [0.0, 0.0, 0.0], max = [$side, $side, $side] }
material = "glass"
[[interaction]]
between = ["glass", "glass"]
normal = { law = "hertz" }
damping = { law = "viscous", restitution = 0.5, form = "tsuji" }
tangential = { law = "cundall_strack", friction = 0.5, stiffness = "mindlin", form = "liggghts", restitution = 0.5 }
[output]
dir = "/tmp/dense$n"
every_steps = 10
formats = []
energy = true
TOML
    step "dense $n^3"
    ( time timeout 150 $B run --backend gpu "/tmp/dense$n.toml" ) 2>&1 | tee "$OUT/dense$n.txt"
}
for n in ${DENSE:-}; do dense "$n"; done
