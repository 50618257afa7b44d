# bundlelib.sh: what tests/bundle.sh, tests/bundlecaps.sh and tests/redact.sh share, sourced
# after they set CGW.
# bundle_prelude NAME WHY TOOL...: prints SKIP (not root: WHY names what root is for; a TOOL
# missing) or FAIL (no binary) and exits 0; else sets tmp (a directory removed at exit) and
# conf (a configuration of built-in defaults, whatever /etc holds).
bundle_prelude() {
	local name=$1 why=$2 tool
	shift 2
	if [ "$(id -u)" != 0 ]; then
		echo "SKIP $name: needs root ($why)"
		exit 0
	fi
	for tool; do
		if ! command -v "$tool" >/dev/null; then
			echo "SKIP $name: $tool is not installed"
			exit 0
		fi
	done
	if [ ! -x "$CGW" ]; then
		echo "FAIL $name: no cgwatch binary at $CGW (run make, or set CGWATCH)"
		exit 0
	fi
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	unset CGWATCH_SIGNATURES_DIR
	conf=$tmp/cgwatch.conf
	: >"$conf"
}

# The first 400 bytes of a message, on one line.
clip() { tr '\n' ' ' <<<"$1" | head -c 400; }

# bundle_valgrind NAME: VG_CGW, the binary valgrind can run (CGWATCH_PLAIN, else CGW), and
# return 0; or print why NAME is skipped (no valgrind, an ASan build) and return 1.
bundle_valgrind() {
	VG_CGW=${CGWATCH_PLAIN:-$CGW}        # valgrind cannot run a binary built with ASan
	export VALGRIND_OPTS="${VALGRIND_OPTS:+$VALGRIND_OPTS }--suppressions=$repo/tests/valgrind.supp"
	if ! command -v valgrind >/dev/null; then
		echo "SKIP $1: valgrind is not installed"
		return 1
	fi
	if ldd "$VG_CGW" 2>/dev/null | grep -q libasan; then
		echo "SKIP $1: $VG_CGW is built with AddressSanitizer (set CGWATCH_PLAIN)"
		return 1
	fi
	return 0
}
