#!/usr/bin/env bash
# compare-outputs.sh - prove that two cuplas binaries write the same bytes.
#
#   scripts/compare-outputs.sh OLD_CUPLAS NEW_CUPLAS [--backend cpu|gpu]
#                              [--quick] [--only REGEX] [--keep]
#
# What it checks: for a fixed set of inputs, configs and seeds, OLD and NEW
# sort the same input with the same options, and then for each pair of
# result files
#   - every dataset (`index`, `sorted`, and any other one) holds the same
#     bytes (h5dump -b LE of each, compared with cmp);
#   - the file's structure is the same: groups, dataset names, dtypes,
#     shapes, chunking, filters, compressed sizes, and every attribute with
#     its value (floats to 17 digits), except the ones that legitimately
#     differ between two runs (COMPARE_IGNORE_ATTRS, default: wall_seconds
#     backend device cuplas_version). Storage
#     OFFSETs are dropped: they move when an ignored attribute's length does.
# A sort that fails must fail the same way: same exit code, no output.
# `cuplas run` over a small collection (output.deflate 0 and 4) is compared
# the same way file by file, plus the set of files and the manifest's
# per-dataset records (status, error, AND, shape, dtype; not the timings).
#
# Why this way: the restructure promises "no output byte changes"; the
# reference is a binary built before it (/work/baseline/cuplas). Inputs are
# made by OLD's `gen` (uint8 colours, float32 normals, 3DGS-like flat tables
# with height/width attributes); the dtypes `gen` does not make (8/16/32/64
# bit integers, float64, big-endian, chunked + gzip inputs) are written with
# python3 (stdlib: random + array) and h5import from hdf5-tools. float16 is
# not covered: no Debian tool writes it without h5py.
#
# Cases: shapes 1x1 .. 256x200 (odd, non-square), C = 1 .. 59, every dtype
# above, both permuters, every border mode on x and y, shuffle on/off,
# several seeds (0, 2^64-1 ...), flat (N, C) inputs with attributes, with
# --height/--width and as a square, channels.use / weights / normalize
# standardize|minmax, other sort.* keys, output chunking/deflate, threads,
# and two bad channel options (job errors, exit 1). --quick runs a subset (about 30 cases, well under a minute).
#
# --backend gpu: NEW sorts on the GPU, OLD stays on the CPU (the CPU and GPU
# sorts are byte-identical by contract), so OLD may be a CPU-only build.
#
# Hooks (environment):
#   COMPARE_NEW_SET="KEY=VALUE ..."  extra --set options given to NEW only,
#       after all others, e.g. COMPARE_NEW_SET=sort.seed=7 must make every
#       sorting case FAIL: the self-test that the harness can fail.
#   COMPARE_NEW_PRE="KEY=VALUE ..."  --set options given to NEW only, BEFORE
#       the case's own (so a case's keys win): an older default for a build
#       whose default changed, e.g. against 0.2.0 or older
#       COMPARE_NEW_PRE="sort.improvement_break=1e-3 sort.max_passes=2"
#       (0.3.0's default preset changed; the run cases set no sort keys).
#   COMPARE_IGNORE_ATTRS="a b ..."   attributes not compared.
#   COMPARE_THREADS=N                backend.threads for both (default 0).
#   COMPARE_IGNORE_STORAGE=1         datasets' stored SIZE lines not compared:
#       for binaries whose deflate encoder differs (zlib vs libdeflate since
#       issue 17): the data must still match byte for byte once inflated.
#       =2: the deflate LEVEL not compared either (the default level went
#       4 -> 1 in issue 17, so default-config cases differ there).
#   TMPDIR                           where the work folder goes.
#
# Output: one line per case, "PASS name" or "FAIL name: why", then
# "N passed, N failed". Exit 0 if all passed, 1 if any failed, 2 on usage
# errors. Tools: bash, coreutils, cmp, h5dump, h5ls, h5import, python3.

set -u -o pipefail

usage() {
    sed -n '4,5p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

# ---- arguments -------------------------------------------------------------
[ $# -ge 2 ] || usage
OLD=$1 NEW=$2
shift 2
BACKEND=cpu QUICK=0 ONLY='' KEEP=0
while [ $# -gt 0 ]; do
    case $1 in
    --backend) BACKEND=${2:-}; shift 2 || usage ;;
    --backend=*) BACKEND=${1#*=}; shift ;;
    --quick) QUICK=1; shift ;;
    --only) ONLY=${2:-}; shift 2 || usage ;;
    --keep) KEEP=1; shift ;;
    -h | --help) sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
    esac
done
case $BACKEND in cpu | gpu) ;; *) usage ;; esac
for b in "$OLD" "$NEW"; do
    [ -x "$b" ] || { echo "compare-outputs: not an executable: $b" >&2; exit 2; }
done
for t in h5dump h5ls h5import cmp python3 md5sum; do
    command -v "$t" >/dev/null || { echo "compare-outputs: $t is missing" >&2; exit 2; }
done
# Absolute paths: `run` cases execute inside the work folder.
OLD=$(cd "$(dirname "$OLD")" && pwd)/$(basename "$OLD")
NEW=$(cd "$(dirname "$NEW")" && pwd)/$(basename "$NEW")

# cuplas_version: builds of two versions differ there by design (the
# contract is per version); every other attribute must match
IGNORE_ATTRS=${COMPARE_IGNORE_ATTRS-wall_seconds backend device cuplas_version}
THREADS=${COMPARE_THREADS:-0}
NEW_SET=() NEW_PRE=()
for kv in ${COMPARE_NEW_SET:-}; do NEW_SET+=(--set "$kv"); done
for kv in ${COMPARE_NEW_PRE:-}; do NEW_PRE+=(--set "$kv"); done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/cuplas-compare.XXXXXX")
if [ "$KEEP" = 1 ]; then
    echo "work folder: $WORK"
else
    trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK/in" "$WORK/old" "$WORK/new"
# No SLURM array variables may leak into `run` (they would shard it).
unset SLURM_ARRAY_TASK_ID SLURM_ARRAY_TASK_MIN SLURM_ARRAY_TASK_MAX SLURM_ARRAY_TASK_COUNT

PASSED=0 FAILED=0

report() { # report NAME WHY ("" = pass)
    if [ -z "$2" ]; then
        PASSED=$((PASSED + 1)); echo "PASS $1"
    else
        FAILED=$((FAILED + 1)); echo "FAIL $1: $2"
    fi
}

# ---- inputs ----------------------------------------------------------------
# make_input SPEC: print the path of the input file SPEC describes, making
# it once (cases share inputs). SPEC is one of
#   gen ARGS...                 OLD's `cuplas gen ARGS`
#   raw DTYPE SHAPE [be] [gzip] python3 + h5import: DTYPE u8 i8 u16 i16 u32
#                               i32 u64 i64 f32 f64, SHAPE HxWxC (a grid) or
#                               NxC (flat), dataset /data/feat; `be` stores
#                               it big-endian, `gzip` chunked + deflate 6.
make_input() {
    local spec=$1 key path
    key=$(printf '%s' "$spec" | md5sum | cut -c1-12)
    path=$WORK/in/$key.h5
    if [ ! -s "$path" ]; then
        set -- $spec
        case $1 in
        gen) shift; "$OLD" gen "$@" "$path" >/dev/null 2>"$path.log" || return 1 ;;
        raw) shift; make_raw "$path" "$@" || return 1 ;;
        *) return 1 ;;
        esac
    fi
    printf '%s\n' "$path"
}

# make_raw OUT DTYPE SHAPE [be] [gzip]: random values of DTYPE (seeded by
# the spec, so every run of the harness makes the same file) covering much
# of the type's range, so quantisation sees large, negative and tiny values.
make_raw() {
    local out=$1 dtype=$2 shape=$3 order=LE gzip=0 opt
    shift 3
    for opt in "$@"; do
        case $opt in be) order=BE ;; gzip) gzip=1 ;; *) return 1 ;; esac
    done
    local dims=${shape//x/ } rank
    rank=$(echo $dims | wc -w)
    python3 - "$out.bin" "$dtype" "$dims" "$shape:$order" <<'EOF' || return 1
import array, random, sys
out, dtype, dims, seed = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4]
n = 1
for d in dims:
    n *= int(d)
rng = random.Random(dtype + ":" + seed)
code, lo, hi = {"u8": ("B", 0, 255), "i8": ("b", -128, 127),
                "u16": ("H", 0, 65535), "i16": ("h", -32768, 32767),
                "u32": ("I", 0, 2**32 - 1), "i32": ("i", -2**31, 2**31 - 1),
                "u64": ("Q", 0, 2**64 - 1), "i64": ("q", -2**63, 2**63 - 1),
                "f32": ("f", None, None), "f64": ("d", None, None)}[dtype]
if lo is None:
    # floats: normals at a few scales, some exact zeros and integers
    vals = []
    for i in range(n):
        r = rng.random()
        if r < 0.05:
            vals.append(0.0)
        elif r < 0.1:
            vals.append(float(rng.randint(-3, 3)))
        else:
            vals.append(rng.gauss(0, 1) * 10.0 ** rng.randint(-3, 3))
else:
    # integers: mostly a band in the middle, some at the extremes
    vals = [rng.choice((lo, hi)) if rng.random() < 0.02 else
            rng.randint(lo + (hi - lo) // 3, hi - (hi - lo) // 3)
            for _ in range(n)]
open(out, "wb").write(array.array(code, vals).tobytes())
EOF
    local class size
    case $dtype in
    u*) class=UIN size=${dtype#u} ;;
    i*) class=IN size=${dtype#i} ;;
    f*) class=FP size=${dtype#f} ;;
    esac
    {
        echo "PATH /data/feat"
        echo "INPUT-CLASS $class"
        echo "INPUT-SIZE $size"
        echo "INPUT-BYTE-ORDER LE" # array.array wrote native (x86: LE)
        echo "RANK $rank"
        echo "DIMENSION-SIZES $dims"
        echo "OUTPUT-CLASS $class"
        echo "OUTPUT-SIZE $size"
        [ "$class" = FP ] && echo "OUTPUT-ARCHITECTURE IEEE" || echo "OUTPUT-ARCHITECTURE STD"
        echo "OUTPUT-BYTE-ORDER $order"
        if [ "$gzip" = 1 ]; then
            local first=${dims%% *} rest=${dims#* }
            echo "CHUNKED-DIMENSION-SIZES $(( (first + 2) / 3 )) $rest"
            echo "COMPRESSION-TYPE GZIP"
            echo "COMPRESSION-PARAM 6"
        fi
    } >"$out.cfg"
    h5import "$out.bin" -c "$out.cfg" -o "$out" >"$out.log" 2>&1
}

# ---- comparison ------------------------------------------------------------
# h5_shape FILE: the file's structure and attributes as text, one line per
# leaf, each prefixed with the object it belongs to ("/grid/index:",
# "/grid@seed:"), less the ignored attributes, storage offsets and the
# file name line.
h5_shape() {
    h5dump -A -p -m %.17g "$1" | python3 -c '
import re, sys
ignore = set(sys.argv[1].split())
storage = int(sys.argv[2] or 0)   # COMPARE_IGNORE_STORAGE
stack = []          # (name, is_attribute) per open brace; "" = anonymous
for i, line in enumerate(sys.stdin):
    text = line.strip()
    if i == 0:      # HDF5 "path/of/the/file.h5" {
        stack.append(("", False))
        continue
    m = re.match(r"(GROUP|DATASET|ATTRIBUTE) \"([^\"]*)\" \{$", text)
    if m:
        stack.append((m.group(2), m.group(1) == "ATTRIBUTE"))
        continue
    if text.endswith("{"):
        stack.append(("", False))
    if text == "}":
        stack.pop()
        continue
    if any(attr and name in ignore for name, attr in stack):
        continue
    if text.startswith("OFFSET "):
        continue
    if storage >= 1 and text.startswith("SIZE "):
        continue
    if storage >= 2 and text.startswith("COMPRESSION DEFLATE"):
        text = "COMPRESSION DEFLATE"
    where = "".join(("@" if attr else "/") + name
                    for name, attr in stack if name and name != "/") or "/"
    print(where + ": " + text)
' "$IGNORE_ATTRS" "${COMPARE_IGNORE_STORAGE:-0}"
}

# compare_h5 A B: print why the two result files differ; nothing if they
# are the same where it counts.
compare_h5() {
    local a=$1 b=$2 ds bad='' n=0
    [ -s "$a" ] || { echo "OLD wrote no $(basename "$a")"; return; }
    [ -s "$b" ] || { echo "NEW wrote no $(basename "$b")"; return; }
    # Every dataset of either file, `index` and `sorted` included, byte for
    # byte (a dataset missing on one side cannot be read there: it differs).
    while read -r ds; do
        n=$((n + 1))
        rm -f "$WORK/a.bin" "$WORK/b.bin"
        h5dump -b LE -d "$ds" -o "$WORK/a.bin" "$a" >/dev/null 2>&1 &&
            h5dump -b LE -d "$ds" -o "$WORK/b.bin" "$b" >/dev/null 2>&1 &&
            cmp -s "$WORK/a.bin" "$WORK/b.bin" || bad="$bad $ds"
    done < <({ h5ls -r "$a"; h5ls -r "$b"; } | awk '$2 == "Dataset" { print $1 }' | sort -u)
    [ -n "$bad" ] && echo "DATA differs:$bad;"
    # A result holds at least `index` and `sorted`.
    [ "$n" -ge 2 ] || echo "only $n datasets;"
    # Structure and attributes: name the objects whose lines differ.
    local diffs
    h5_shape "$a" >"$WORK/a.txt" && h5_shape "$b" >"$WORK/b.txt" &&
        [ -s "$WORK/a.txt" ] && [ -s "$WORK/b.txt" ] ||
        { echo "cannot dump the attributes;"; return; }
    diffs=$(diff "$WORK/a.txt" "$WORK/b.txt" | sed -n 's/^[<>] \([^:]*\):.*/\1/p' | sort -u)
    [ -n "$diffs" ] && echo "attributes/structure differ:" $diffs
}

# ---- sort cases ------------------------------------------------------------
# sort_case TAG NAME "INPUT SPEC" [SORT OPTIONS...]: TAG q = also in --quick.
sort_case() {
    local tag=$1 name=$2 spec=$3 in why rc_old rc_new
    shift 3
    [ "$QUICK" = 1 ] && [ "$tag" != q ] && return
    [ -n "$ONLY" ] && ! [[ $name =~ $ONLY ]] && return
    if ! in=$(make_input "$spec"); then
        report "$name" "cannot make input ($spec)"
        return
    fi
    local o=$WORK/old/$name.h5 n=$WORK/new/$name.h5
    rm -f "$o" "$n"
    "$OLD" sort "$in" "$o" --force --backend cpu --threads "$THREADS" \
        --log-format json "$@" >/dev/null 2>"$o.log"
    rc_old=$?
    "$NEW" sort "$in" "$n" --force --backend "$BACKEND" --threads "$THREADS" \
        --log-format json "${NEW_PRE[@]}" "$@" "${NEW_SET[@]}" >/dev/null 2>"$n.log"
    rc_new=$?
    if [ "$rc_old" != "$rc_new" ]; then
        why="exit codes differ: OLD $rc_old, NEW $rc_new ($(tail -c 200 "$n.log" | tr '\n' ' '))"
    elif [ "$rc_old" != 0 ]; then
        # An expected error: it must leave no output behind.
        why=''
        [ -e "$o" ] || [ -e "$n" ] && why="exit $rc_old but an output exists"
        name="$name (both exit $rc_old)"
    else
        why=$(compare_h5 "$o" "$n" | tr '\n' ' ' | sed 's/ $//')
    fi
    report "$name" "$why"
}

# ---- run cases -------------------------------------------------------------
# run_case TAG NAME DEFLATE: `cuplas run` over a small collection (several
# files, several datasets per file, a flat table with attributes, a flat
# table shaped by the config, integer and float dtypes), then every output
# file, the file sets and the manifests' records are compared.
run_case() {
    local tag=$1 name=$2 deflate=$3 f why='' rc_old rc_new
    [ "$QUICK" = 1 ] && [ "$tag" != q ] && return
    [ -n "$ONLY" ] && ! [[ $name =~ $ONLY ]] && return
    local dir=$WORK/run
    if [ ! -d "$dir/col" ]; then
        mkdir -p "$dir/col" "$dir/flat"
        cp "$(make_input 'gen --size 64x48 --count 3 --seed 11')" "$dir/col/colors.h5" &&
            cp "$(make_input 'gen --kind normal --size 31x17 --channels 17 --seed 12 --dataset /feat/normal')" "$dir/col/normal.h5" &&
            cp "$(make_input 'gen --kind gaussians --size 20x30 --seed 13')" "$dir/col/gauss.h5" &&
            cp "$(make_input 'raw i16 33x9x5')" "$dir/col/int16.h5" &&
            cp "$(make_input 'raw f64 600x7')" "$dir/flat/table.h5" ||
            { report "$name" "cannot make the collection"; return; }
    fi
    for side in old new; do
        cat >"$dir/$side.yaml" <<EOF
inputs:
  - files: ["col/*.h5"]
  - files: "flat/table.h5"
    datasets: ["/data/*"]
    height: 20
    width: 30
output:
  dir: out-$side
  name: "{stem}.{dataset}.h5"
  overwrite: overwrite
  deflate: $deflate
  fsync: false
sort:
  seed: 4242
  permuter: lcg
channels:
  normalize: minmax
backend:
  threads: $THREADS
EOF
        rm -rf "$dir/out-$side"
    done
    (cd "$dir" && "$OLD" run old.yaml --no-shard --log-format json \
        --set backend.device=cpu >/dev/null 2>old.log)
    rc_old=$?
    (cd "$dir" && "$NEW" run new.yaml --no-shard --log-format json \
        --set backend.device="$BACKEND" "${NEW_PRE[@]}" "${NEW_SET[@]}" >/dev/null 2>new.log)
    rc_new=$?
    if [ "$rc_old" != 0 ] || [ "$rc_new" != 0 ]; then
        report "$name" "run exit codes OLD $rc_old, NEW $rc_new"
        return
    fi
    local names_old names_new
    names_old=$(cd "$dir/out-old" && ls -1 *.h5 2>/dev/null)
    names_new=$(cd "$dir/out-new" && ls -1 *.h5 2>/dev/null)
    if [ "$names_old" != "$names_new" ]; then
        why="output file sets differ: OLD [$(echo $names_old)] NEW [$(echo $names_new)]"
    elif [ "$(echo "$names_old" | wc -l)" -lt 7 ]; then
        why="only $(echo "$names_old" | wc -l) outputs (expected 7)"
    else
        for f in $names_old; do
            why=$(compare_h5 "$dir/out-old/$f" "$dir/out-new/$f" | tr '\n' ' ' | sed 's/ $//')
            [ -n "$why" ] && { why="$f: $why"; break; }
        done
    fi
    if [ -z "$why" ]; then
        why=$(manifest_records "$dir/out-old" | cmp -s - <(manifest_records "$dir/out-new") ||
            echo "manifest records differ")
    fi
    report "$name" "$why"
}

# manifest_records DIR: the manifest's per-dataset records without
# timings, device and output folder, sorted; plus the job totals.
manifest_records() {
    python3 - "$1/cuplas-manifest.json" <<'EOF'
import json, os, sys
m = json.load(open(sys.argv[1]))
keep = ("input", "dataset", "status", "error", "and_before", "and_after", "shape", "dtype")
recs = []
for r in m["datasets"]:
    d = {k: r.get(k) for k in keep}
    d["output"] = os.path.basename(r.get("output") or "")
    recs.append(json.dumps(d, sort_keys=True))
print("\n".join(sorted(recs)))
t = m["totals"]
print(m["exit_code"], [t[k] for k in ("jobs", "done", "skipped", "failed", "cancelled", "pending")])
EOF
}

# ---- the cases -------------------------------------------------------------
echo "OLD $OLD (cpu)"
echo "NEW $NEW ($BACKEND)${COMPARE_NEW_SET:+, NEW also --set $COMPARE_NEW_SET}"

# Shapes: colours (uint8, C = 3) from a single cell to 256x200.
for s in 1x1 2x2 6x10 31x17 64x48 128x128 256x200; do
    tag=-
    case $s in 1x1 | 6x10 | 31x17 | 64x48) tag=q ;; esac
    sort_case $tag "colors-$s" "gen --size $s --seed 1"
done
sort_case - colors-1x64 "gen --size 1x64 --seed 2"
sort_case - colors-64x1 "gen --size 64x1 --seed 2"
sort_case - colors-3x5-deflate0 "gen --size 3x5 --seed 3 --deflate 0"

# Channels: float32 normals, C = 1 .. 59.
for c in 1 2 3 4 5 8 13 16 17 33 59; do
    tag=-
    case $c in 1 | 5 | 17 | 59) tag=q ;; esac
    sort_case $tag "normal-31x17x$c" "gen --kind normal --size 31x17 --channels $c --seed $c"
done
sort_case - normal-64x48x16 "gen --kind normal --size 64x48 --channels 16 --seed 5"
sort_case - normal-128x128x16 "gen --kind normal --size 128x128 --channels 16 --seed 6"
sort_case - normal-48x64x33 "gen --kind normal --size 48x64 --channels 33 --seed 7"

# Dtypes the generator does not make, plus big-endian and chunked+gzip inputs.
for t in u8 i8 u16 i16 u32 i32 u64 i64 f32 f64; do
    tag=-
    case $t in i8 | u16 | i64 | f64) tag=q ;; esac
    sort_case $tag "raw-$t-31x17x4" "raw $t 31x17x4"
done
sort_case - raw-u16-64x48x3 "raw u16 64x48x3"
sort_case - raw-f64-64x48x13 "raw f64 64x48x13"
sort_case q raw-f64be-17x31x3 "raw f64 17x31x3 be"
sort_case - raw-i32be-20x20x2 "raw i32 20x20x2 be"
sort_case q raw-f32gzip-40x25x6 "raw f32 40x25x6 gzip"
sort_case - raw-u8gzip-9x70x1 "raw u8 9x70x1 gzip"

# Every permuter x border_x x border_y x shuffle on one odd grid.
for p in feistel lcg; do
    for bx in circular reflect replicate; do
        for by in circular reflect replicate; do
            for sh in true false; do
                tag=-
                [ "$bx" = "$by" ] && [ "$sh" = true ] && tag=q
                [ "$p/$bx/$by/$sh" = lcg/reflect/circular/false ] && tag=q
                sort_case $tag "sweep-$p-$bx-$by-shuffle_$sh" \
                    "gen --kind normal --size 31x17 --channels 5 --seed 21" --seed 99 \
                    --set sort.permuter=$p --set sort.border_x=$bx \
                    --set sort.border_y=$by --set sort.shuffle=$sh
            done
        done
    done
done

# Seeds, including the extremes of uint64.
for seed in 0 1 1337 123456789 18446744073709551615; do
    tag=-
    [ "$seed" = 18446744073709551615 ] && tag=q
    sort_case $tag "seed-$seed-colors-64x48" "gen --size 64x48 --seed 4" --seed $seed
    sort_case - "seed-$seed-lcg-noshuffle-31x17x8" "gen --kind normal --size 31x17 --channels 8 --seed 4" \
        --seed $seed --set sort.permuter=lcg --set sort.shuffle=false
done

# Other sort.* keys and output layout options.
N31='gen --kind normal --size 31x17 --channels 4 --seed 31'
sort_case q params-blur3-block6 "$N31" --set sort.blur_passes=3 --set sort.min_block_size=6
sort_case - params-radius-decay "$N31" --set sort.start_radius=5 --set sort.radius_decay=0.8 --set sort.min_blur_radius=2
sort_case - params-long "$N31" --set sort.improvement_break=0 --set sort.min_configs=4 \
    --set sort.max_configs=8 --set sort.max_passes=8
sort_case - params-pla-quality "gen --size 64x48 --seed 8" --set sort.improvement_break=1e-4 \
    --set sort.max_passes=16 --set sort.max_configs=16 --set sort.min_configs=4
sort_case q output-deflate0 "$N31" --set output.deflate=0
sort_case - output-deflate9-noshuffle "$N31" --set output.deflate=9 --set output.shuffle=false
sort_case - output-chunk-rows-3 "$N31" --set output.chunk_rows=3
sort_case - threads-1 "gen --size 64x48 --seed 9" --threads 1

# Flat (N, C) tables: gaussians carry height/width attributes.
sort_case q flat-gauss-attrs-6x10 "gen --kind gaussians --size 6x10 --seed 1"
sort_case - flat-gauss-attrs-64x48 "gen --kind gaussians --size 64x48 --seed 2"
sort_case q flat-gauss-use-weights-std "gen --kind gaussians --size 31x17 --seed 3" \
    --channels 0-8 --weights 1,1,1,1,1,1,0.5,0.5,0.5 --normalize standardize
sort_case - flat-gauss-use-weights-minmax "gen --kind gaussians --size 31x17 --seed 3" \
    --channels 0-2,5,13 --weights 2,1,1,0.25,3 --normalize minmax
sort_case q flat-gauss-override-hw "gen --kind gaussians --size 6x10 --seed 4" --height 4 --width 15
sort_case - grid-gauss-3d "gen --kind gaussians --grid --size 17x31 --seed 5" --normalize standardize
sort_case q flat-raw-f64-hw "raw f64 600x7" --height 20 --width 30 --normalize minmax
sort_case - flat-raw-i32-square "raw i32 1024x3"
sort_case - flat-raw-u16-hw-use "raw u16 221x6" --height 13 --width 17 --channels 1,3-5 --normalize standardize

# channels.* on grids.
sort_case q grid-use-subset-std "gen --kind normal --size 64x48 --channels 16 --seed 10" \
    --channels 0,2,4-7,15 --normalize standardize
sort_case - grid-weights-minmax "gen --kind normal --size 31x17 --channels 5 --seed 11" \
    --weights 1,2,3,0.5,0.125 --normalize minmax
sort_case - grid-one-channel-of-59 "gen --kind normal --size 31x17 --channels 59 --seed 12" --channels 58
sort_case - raw-i64-use-std "raw i64 31x17x4" --channels 0,3 --normalize standardize

# Errors must stay errors (same exit code, no output).
sort_case q error-weights-count "gen --size 6x10 --seed 1" --weights 1,2
sort_case - error-channel-range "gen --size 6x10 --seed 1" --channels 0,7

# `cuplas run` over a collection, uncompressed and deflate 4.
run_case q run-deflate0 0
run_case - run-deflate4 4

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ] && [ "$PASSED" -gt 0 ]
