# s1b: s1's evals again on the same (still warm) machine, summarised into one file.
#   s1's own summary read "ratios" of the eval JSON, which count the wx, wy, wz images
#   (extra_*) as well; and only 8 of its 20 JSON files came back (a count limit). This
#   leaves the extras out, as ev.sh does on the CPU, and writes s1-eval.json.
W=/tmp/dev-work-s1; export LD_LIBRARY_PATH=$PWD/.dev/lib; mkdir -p $W/ev
ls $W/*.h5 | sed 's|.*/||; s|\.h5$||' | xargs -P 8 -I{} sh -c \
    "OMP_NUM_THREADS=2 .dev/bin/cuplas eval $W/{}.h5 --scheme sog --codecs png,webp --webp-method 6 --json > $W/ev/{}.json"
# then the python summary of the device call (in README.md, "Commands")
