#!/bin/bash
# live-auditunit: with no daemon running, `cgwatch audit` takes the daemon's CPUs from
# cgwatch.service as systemd would: the unit file (CPUAffinity=1 after a reset of 0) and a
# drop-in (AllowedCPUs=0-1) give CPU 1, named with the files in the evidence of
# self.housekeeping_cpus. The unit files live on a tmpfs over /etc/systemd/system in a private
# mount namespace (unshare -m): nothing of the host's is changed.
. "$(dirname "$0")/lib.sh"
live_init auditunit
live_require_root
live_require_tools jq timeout unshare
live_require_binary
live_mktemp
[ -d /etc/systemd/system ] || live_skip "no /etc/systemd/system to mount over"
for p in $(pgrep -x cgwatch); do
	tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -qE '^[^ ]*cgwatch run' &&
		live_skip "a cgwatch daemon runs here (PID $p): the audit takes its CPUs, not the unit's"
done
OUT=$LIVE_TMP/a.json
timeout 30 unshare -m sh -c '
	mount -t tmpfs cgwtest /etc/systemd/system || exit 90
	mkdir /etc/systemd/system/cgwatch.service.d
	printf "[Unit]\nDescription=test\n[Service]\nCPUAffinity=0\nCPUAffinity=\nCPUAffinity=1\n" \
		>/etc/systemd/system/cgwatch.service
	printf "[Service]\nAllowedCPUs=0-1\n" >/etc/systemd/system/cgwatch.service.d/10-cpus.conf
	exec "$1" audit --format json' sh "$CGWATCH" >"$OUT" 2>"$LIVE_TMP/a.err"
rc=$?
[ "$rc" = 90 ] && live_skip "cannot mount a tmpfs in a private mount namespace"
[ "$rc" -le 1 ] || live_fail "audit exit $rc: $(head -c 300 "$LIVE_TMP/a.err")"
ev=$(jq -r '.facts["self.housekeeping_cpus"].evidence[]' "$OUT")
grep -qF "cgwatch.service (no daemon running; /etc/systemd/system/cgwatch.service, /etc/systemd/system/cgwatch.service.d/10-cpus.conf) lets it run on CPUs 1 (CPUAffinity= and AllowedCPUs=): 1 of them housekeeping" <<<"$ev" ||
	live_fail "the unit's CPUs are not what the evidence says: $ev"
[ "$(jq '.facts["self.housekeeping_cpus"].value' "$OUT")" = 1 ] || live_fail "self.housekeeping_cpus is not 1"
grep -q cgwtest /proc/self/mountinfo && live_fail "the tmpfs is visible outside the namespace"
live_pass
