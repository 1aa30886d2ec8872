# deps.sh: sourced by start.sh and test.sh. Checks what a fresh Debian 12 / Ubuntu 24.04 machine
# lacks; installs it when run as root, else prints the one apt-get line needed and stops.
# The CUDA toolkit (12 or 13) cannot come from Debian's mirror: it must already be installed.

# gettext: msgfmt builds the grader's message catalogs (grader/po), xgettext checks them.
. "$(dirname "${BASH_SOURCE[0]}")/i18n.sh"

WB_DEBIAN_PACKAGES="build-essential cmake ninja-build pkg-config libyaml-dev libjansson-dev libcriterion-dev libssl-dev libsqlite3-dev python3 clang gettext"
# Optional: headless Chromium renders each lesson's timeline.html in the test suite (test
# timeline_html), and fonts-noto-cjk gives it Japanese glyphs (test timeline_html_ja); without
# them those tests report themselves skipped. Large, so never installed here.
WB_OPTIONAL_PACKAGES="chromium fonts-noto-cjk"

wb_missing_packages() {
    local missing="" p
    for p in $WB_DEBIAN_PACKAGES; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
    done
    echo "$missing"
}

wb_ensure_packages() {
    if ! command -v dpkg-query >/dev/null; then
        wb_say "This script sets up Debian and Ubuntu machines; elsewhere install:%s" "$WB_DEBIAN_PACKAGES" >&2
        return 1
    fi
    local missing
    missing=$(wb_missing_packages)
    if ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null; then
        wb_say "note: optional package %s is not installed: the timeline test will be skipped" "$WB_OPTIONAL_PACKAGES" >&2
    fi
    [ -z "$missing" ] && return 0
    if [ "$(id -u)" = 0 ]; then
        wb_say "Installing:%s" "$missing"
        DEBIAN_FRONTEND=noninteractive apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing || return 1
    else
        wb_say "Missing Debian packages. Install them with:" >&2
        echo "    sudo apt-get install -y$missing" >&2
        wb_say "then run this command again." >&2
        return 1
    fi
}

wb_find_nvcc() {
    if command -v nvcc >/dev/null; then return 0; fi
    local d
    for d in /usr/local/cuda/bin /usr/local/cuda-13*/bin /usr/local/cuda-12*/bin; do
        if [ -x "$d/nvcc" ]; then export PATH="$d:$PATH"; return 0; fi
    done
    wb_say "No CUDA toolkit found (nvcc). Install CUDA 12 or 13 from NVIDIA (https://developer.nvidia.com/cuda-downloads)," >&2
    wb_say "or put its bin/ folder on PATH, then run this command again." >&2
    return 1
}

# Configure (once) and build into $1: everything, or only the targets in $WB_BUILD_TARGETS (the
# quick-start test builds just the grader to stay short).
wb_build() {
    local build=$1 generator=""
    command -v ninja >/dev/null && [ ! -f "$build/CMakeCache.txt" ] && generator="-G Ninja"
    cmake -S "$WB_ROOT" -B "$build" $generator -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || return 1
    cmake --build "$build" --parallel "$(nproc 2>/dev/null || echo 2)" ${WB_BUILD_TARGETS:+--target $WB_BUILD_TARGETS}
}
