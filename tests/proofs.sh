# Sourced by the suite's scripts: which scan and latency paths the suite proved, and where.
# A scenario that saw a path work end to end (the source named, its findings or numbers
# right) says so with `proof PATH WHERE`; tests/run.sh fails the suite when a path of
# PROOF_PATHS was proven nowhere (neither on the host nor in any VM kernel), and prints
# where each one was. A run of a single script (no SUITE_PROOFS) records nothing.
#   PATH   one of PROOF_PATHS
#   WHERE  the kernel: "host 6.18.44-..." or "vm 6.1.0-...-rt-amd64"
PROOF_PATHS="scan-walker scan-iterator scan-proc runq-program runq-schedstat counters-perf counters-proc"

proof() {
	[ -n "${SUITE_PROOFS:-}" ] || return 0
	case " $PROOF_PATHS " in
	*" $1 "*) ;;
	*) echo "proof: unknown path '$1' (not one of: $PROOF_PATHS)" >&2; return 1 ;;
	esac
	printf '%s\t%s\t%s\n' "$1" "$2" "${3:-}" >>"$SUITE_PROOFS"
}

# proof_host PATH [SCENARIO]: proved on this machine's kernel
proof_host() {
	proof "$1" "host $(uname -r)" "${2:-}"
}

# The suite's verdict on the paths, as PASS/FAIL lines: each path where it was proven.
proofs_verdict() {
	local p where
	for p in $PROOF_PATHS; do
		where=$(awk -F'\t' -v p="$p" '$1 == p { print $2 }' "$SUITE_PROOFS" 2>/dev/null | sort -u | paste -sd, | sed 's/,/, /g')
		if [ -n "$where" ]; then
			echo "PASS proof-$p: proven on $where"
		else
			echo "FAIL proof-$p: this path was proven on no kernel (not the host's, not any VM's): every test that could reach it skipped or saw a refusal"
		fi
	done
}
