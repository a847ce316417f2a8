#!/usr/bin/env bash
# The compiled walk under AddressSanitizer and UndefinedBehaviorSanitizer: build
# reference/gcv/reference/_walk.c with both, then run tests/test_walk_kernel.py's fast tests with that
# build standing in for the installed kernel (tests/sanitized_walk.py loads it first).
# CPython is not built with the sanitizers, so libasan is preloaded; leak detection is off
# because the interpreter keeps its objects until exit; --capture=sys leaves file
# descriptor 2 alone, so a report reaches the terminal before the abort.
#
#   bash tests/sanitize_walk.sh                   # exit 0: no report, every test passed
#   bash tests/sanitize_walk.sh --plant-overflow  # the queue one slot short: must fail
set -euo pipefail
cd "$(dirname "$0")/.."
python=.venv/bin/python
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
source=reference/gcv/reference/_walk.c
if [[ "${1:-}" == "--plant-overflow" ]]; then
    # reserve() keeps room for n + 1 entries; room for n - 1 overflows on any long walk.
    sed 's/Py_ssize_t grown = capacity \* 2 > n + 1 ? capacity \* 2 : n + 1;/Py_ssize_t grown = n - 1 > 0 ? n - 1 : 1;/; s/if (grown < 64) {/if (0) {/; s/if (n < capacity) {/if (n < capacity - 2) {/' \
        "$source" >"$build/_walk.c"
    source=$build/_walk.c
fi
include=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
suffix=$("$python" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
gcc -shared -fPIC -g -O1 -fno-omit-frame-pointer \
    -fsanitize=address,undefined -fno-sanitize-recover=undefined \
    -I"$include" "$source" -o "$build/_walk$suffix"
export GCV_SANITIZED_WALK="$build/_walk$suffix"
export LD_PRELOAD
LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export PYTHONMALLOC=malloc  # every allocation through malloc, where ASan sees it
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
"$python" -m pytest -p tests.sanitized_walk -p no:randomly -p no:cacheprovider --capture=sys \
    -m "not slow" tests/test_walk_kernel.py
