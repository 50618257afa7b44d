# Shared by the capture scenarios (sourced after lib.sh): a live check that writes a capture,
# its replay, and the comparison of the two reports.

# capture_run DIR ARGS...: `check --format json ARGS --capture DIR` into $LIVE_TMP/live.json,
# then `check --format json ARGS --root DIR` into $LIVE_TMP/replay.json; sets LIVE_RC and
# REPLAY_RC.
capture_run() {
	local dir=$1
	shift
	live_cgwatch "$LIVE_TMP/live.json" "$LIVE_TMP/live.err" check --format json "$@" --capture "$dir"
	LIVE_RC=$CG_RC
	live_json_check "$LIVE_TMP/live.json" "check --capture"
	[ -s "$dir/cgwatch/clocks" ] || live_fail "no $dir/cgwatch/clocks after check --capture (rc $LIVE_RC): $(head -c 300 "$LIVE_TMP/live.err")"
	live_cgwatch "$LIVE_TMP/replay.json" "$LIVE_TMP/replay.err" check --format json "$@" --root "$dir"
	REPLAY_RC=$CG_RC
	live_json_check "$LIVE_TMP/replay.json" "check --root (the capture)"
}

# capture_compare: the replay agrees with the live report on every finding (id, cause,
# severity, tasks, chain, cpus), on the exit code, and on every finding task's blocked_s and
# blocked_bound (within 0.1 s). Sets NCMP to the number of findings compared. A finding's
# tasks are compared as a set: tasks blocked equally long (other stuck tasks on the host)
# may be listed in another order by the replay.
capture_compare() {
	local key='[.findings[]? | {id, cause, severity, tasks: (.tasks | sort), chain, cpus}] | sort_by(.id, .cause, .tasks)'
	local a b
	a=$(jq -c "$key" "$LIVE_TMP/live.json") b=$(jq -c "$key" "$LIVE_TMP/replay.json")
	[ "$a" = "$b" ] || live_fail "findings differ: live $(head -c 700 <<<"$a") replay $(head -c 700 <<<"$b")"
	[ "$LIVE_RC" = "$REPLAY_RC" ] || live_fail "exit codes differ: live $LIVE_RC, replay $REPLAY_RC"
	local times='[.findings[]?.tasks[]?] as $f | [.tasks[]? | select(.tid as $t | $f | index($t)) | {tid, blocked_s, blocked_bound}] | sort_by(.tid)'
	a=$(jq -c "$times" "$LIVE_TMP/live.json") b=$(jq -c "$times" "$LIVE_TMP/replay.json")
	jq -n -e --argjson a "$a" --argjson b "$b" '($a | length) == ($b | length) and
		([range($a | length)] | all(. as $i | $a[$i].tid == $b[$i].tid and
			$a[$i].blocked_bound == $b[$i].blocked_bound and
			(($a[$i].blocked_s - $b[$i].blocked_s) | fabs) <= 0.1001))' >/dev/null ||
		live_fail "task times differ: live $(head -c 600 <<<"$a") replay $(head -c 600 <<<"$b")"
	NCMP=$(jq '[.findings[]?] | length' "$LIVE_TMP/live.json")
}

# capture_modes DIR: every directory of the tree 0700, every file 0600, nothing else but the
# symlinks of fd and cwd links.
capture_modes() {
	local bad
	bad=$(find "$1" \( -type d ! -perm 0700 \) -o \( -type f ! -perm 0600 \) -o \
		\( ! -type d ! -type f ! -type l \) | head -3)
	[ -z "$bad" ] || live_fail "capture tree modes: $bad ($(stat -c '%a %F' $bad | tr '\n' ' '))"
}
