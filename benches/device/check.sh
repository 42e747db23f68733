#!/usr/bin/env bash
# The whole check on a lent GPU, in one call (the lease is 15 minutes, a start included):
# the adapter, the bench with its per-pass profile (gas and settle, GPU beside the CPU backend
# on the same machine), the test suite with GRAINS_REQUIRE_GPU=1, then dense lattices of 1M,
# 10M and 27M spheres to see where the GPU step stops.
#
# Built here, run there: `benches/device/prepare.sh` strips the release binaries into .dev/;
# the device tool carries .dev and .gl (the Vulkan loader's .deb, see the device README).
# Every step has its own timeout and writes its log under $OUT, so a step cut short loses
# only itself.
set -u
OUT=${OUT:-/tmp/grains-device}
BIN=${BIN:-.dev}
mkdir -p "$OUT"
step() { echo; echo "== $* ($(date +%T))"; }

if [ -d .gl ]; then
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
fi
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$icd" ] || icd=$(find /usr/local/nvidia /usr/share/vulkan /etc/vulkan -name 'nvidia_icd*.json' 2>/dev/null | head -1)
[ -n "$icd" ] && export VK_DRIVER_FILES=$icd VK_ICD_FILENAMES=$icd
# The test binary finds scenes/ and fixtures through the workspace root it was built in.
mkdir -p /work
[ -e /work/main ] || ln -s "$PWD" /work/main
export XDG_RUNTIME_DIR=/tmp CI=true GRAINS_REQUIRE_GPU=1

step adapter
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv 2>&1 | tee "$OUT/env.txt"
echo "icd: ${icd:-none}" | tee -a "$OUT/env.txt"
"$BIN/grains" info 2>&1 | tee -a "$OUT/env.txt"
grep -qi nvidia "$OUT/env.txt" || { echo "no NVIDIA adapter: stopping"; exit 3; }

step bench gas
timeout 170 "$BIN/grains" bench --scene gas --sizes 20000,100000,1000000 --backends gpu,cpu \
    --steps 200 --profile 2>&1 | tee "$OUT/bench_gas.txt"
step bench settle
timeout 120 "$BIN/grains" bench --scene settle --sizes 100000,1000000 --backends gpu,cpu \
    --steps 200 2>&1 | tee "$OUT/bench_settle.txt"

step tests
timeout 200 "$BIN/all" --test-threads 8 >"$OUT/tests.txt" 2>&1
echo "rc $?"
grep -E "^test result|FAILED|panicked" "$OUT/tests.txt" | head -40
timeout 60 "$BIN/grains_gpu" >>"$OUT/tests.txt" 2>&1
echo "grains_gpu rc $?"

dense() {
    local n=$1 side
    side=$(python3 -c "print(round(0.00105*2 + $n*0.00199, 4))")
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
    "$BIN/grains" check "/tmp/dense$n.toml" 2>&1 | grep -i -E "memory|estimate|per particle" | head -5
    ( time timeout "$2" "$BIN/grains" run --backend gpu "/tmp/dense$n.toml" ) 2>&1 | tee "$OUT/dense$n.txt"
}
dense 100 60
dense 216 120
dense 300 150
step done
