#!/usr/bin/env bash
# Packaging: `make install` into a staging root lays out every file, and the installed binary
# holds the signature library (nothing of it installed as files); both units pass
# `systemd-analyze verify` (and the daemon's sandbox stays tight); the installed journal
# catalog compiles and covers every signature and the daemon's hazard messages; the installed cgwatch.conf passes
# `cgwatch config --check`; a second install keeps an edited cgwatch.conf. (e) `make deb`
# builds the Debian package, lintian-clean, holding the same files, with the daemon enabled
# and started by its maintainer scripts and a purge that leaves nothing behind.
# Prints only "PASS name", "FAIL name: why" and "SKIP name: why" lines; exits non-zero when
# anything failed. Needs no root: everything happens under a temporary directory. (e) never
# installs the package here: tests/systemd/ installs it into a booted container.
# DEB_KEEP=DIR (tests/run.sh): the package, once built without a fault, is copied into DIR
# for tests/systemd/run.sh (SD_DEB) to install rather than build the same package again.
set -u
cd "$(dirname "$0")/.."
REPO=$PWD
fails=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }
skip() { echo "SKIP $1: $2"; }
oneline() { tr '\n' ' ' | sed 's/  */ /g; s/ $//' | cut -c1-400; }

T=$(mktemp -d) || { fail packaging "mktemp -d failed"; exit 1; }
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
ROOT=$T/root
# the highest exposure `systemd-analyze security` may give cgwatch.service: 1.8 when written;
# reading /dev/kmsg (ProtectKernelLogs=no, CAP_SYSLOG) and perf_event_open (@debug) for the
# correlators bring it to 2.1, and bpf (in @privileged) for the task iterator, the scan, to
# 2.2. A rise past this bound needs a reason.
MAX_EXPOSURE=2.2
# lintian tags the package may carry, shown or overridden (debian/cgwatch.lintian-overrides);
# each is justified in README section 7. Anything else lintian says fails deb-lintian.
LINTIAN_ALLOWED=(
	package-supports-alternative-init-but-no-init.d-script
)

nsigs=$(ls conf/signatures.d/*.conf | wc -l)
# catalog entries: one per signature, one for the hazard messages (found and cleared)
ncat=$((nsigs + 1))
HAZARD_MID=$(sed -n 's/^#define HAZARD_MESSAGE_ID "\([0-9a-f]\{32\}\)"$/\1/p' src/cgwatch.h)
expected=(
	usr/sbin/cgwatch
	etc/cgwatch/cgwatch.conf
	etc/cgwatch/signatures.d/
	etc/cgwatch/hazards.d/
	usr/share/cgwatch/cgwatch.conf
	lib/systemd/system/cgwatch.service
	lib/systemd/system/cgwatch-check.service
	usr/lib/systemd/catalog/cgwatch.catalog
	usr/share/man/man8/cgwatch.8
	usr/share/man/man5/cgwatch.conf.5
)

# (a) the layout. Its own build directory: PREFIX=/usr must not change build/cgwatch.
# A failed install still goes on to the checks below: they say what is missing.
if ! out=$(make -s -j"$(nproc)" install BUILD="$T/build" DESTDIR="$ROOT" PREFIX=/usr 2>&1); then
	fail install-run "make install BUILD=$T/build DESTDIR=$ROOT PREFIX=/usr failed: $(tail -3 <<<"$out" | oneline)"
	[ -x "$ROOT/usr/sbin/cgwatch" ] || exit 1
else
	pass install-run
fi
missing="" bad=""
for f in "${expected[@]}"; do
	case $f in
	*/) [ -d "$ROOT/$f" ] || missing="$missing $f" ;;
	*) [ -f "$ROOT/$f" ] || missing="$missing $f" ;;
	esac
done
# anything installed that is not expected (a stray file is a packaging bug too)
extra=$(cd "$ROOT" && find . -type f | sed 's|^\./||' | sort | while read -r f; do
	printf '%s\n' "${expected[@]}" | grep -qxF "$f" || printf ' %s' "$f"
done)
[ "$(stat -c %a "$ROOT/usr/sbin/cgwatch" 2>/dev/null)" = 755 ] || bad="$bad usr/sbin/cgwatch-not-755"
for f in "${expected[@]}"; do
	case $f in */ | usr/sbin/cgwatch) continue ;; esac
	[ -f "$ROOT/$f" ] && [ "$(stat -c %a "$ROOT/$f")" != 644 ] && bad="$bad $f-mode-$(stat -c %a "$ROOT/$f")"
done
if [ -n "$missing" ]; then
	fail install-layout "missing:$missing"
elif [ -n "$extra" ]; then
	fail install-layout "unexpected files:$extra"
elif [ -e "$ROOT/var" ]; then
	fail install-layout "make install created $(cd "$ROOT" && find var | head -3 | oneline): /var is systemd's (StateDirectory=, LogsDirectory=)"
elif [ -n "$bad" ]; then
	fail install-layout "modes:$bad"
elif [ -e "$ROOT/usr/share/cgwatch/signatures.d" ]; then
	fail install-layout "usr/share/cgwatch/signatures.d installed: the library is built in"
else
	pass install-layout
fi

# the installed binary, with no environment and no directory configured, holds the whole
# library: one "(built in)" line per shipped file
conf=$T/builtin-only.conf
printf '[signatures]\nshipped =\nlocal =\n' >"$conf"
out=$(env -i "$ROOT/usr/sbin/cgwatch" signatures --config "$conf" 2>&1)
rc=$?
n=$(grep -c ' (built in)$' <<<"$out")
if [ $rc != 0 ] || [ "$n" != "$nsigs" ]; then
	fail install-library "cgwatch signatures: exit $rc, $n built-in signatures for $nsigs files: $(head -3 <<<"$out" | oneline)"
else
	pass install-library
fi

# installed text names the PREFIX=/usr paths
wrong=""
for f in lib/systemd/system/cgwatch.service lib/systemd/system/cgwatch-check.service; do
	grep -q '^ExecStart=/usr/sbin/cgwatch ' "$ROOT/$f" || wrong="$wrong $f(ExecStart)"
	grep -q '@[A-Z]*@' "$ROOT/$f" && wrong="$wrong $f(unsubstituted $(grep -o '@[A-Z]*@' "$ROOT/$f" | head -1))"
done
for f in etc/cgwatch/cgwatch.conf usr/share/man/man8/cgwatch.8 usr/share/man/man5/cgwatch.conf.5; do
	grep -qE '/usr/local/(share|sbin)' "$ROOT/$f" && wrong="$wrong $f(names /usr/local)"
done
grep -q '^#shipped =$' "$ROOT/etc/cgwatch/cgwatch.conf" ||
	wrong="$wrong etc/cgwatch/cgwatch.conf(#shipped)"
if [ -n "$wrong" ]; then
	fail install-paths "$wrong"
else
	pass install-paths
fi

# a second install keeps the admin's cgwatch.conf, and says so
echo "# edited by packaging.sh" >>"$ROOT/etc/cgwatch/cgwatch.conf"
if ! out=$(make -s install BUILD="$T/build" DESTDIR="$ROOT" PREFIX=/usr 2>&1); then
	fail install-keeps-config "second make install failed: $(tail -3 <<<"$out" | oneline)"
elif [ "$(tail -1 "$ROOT/etc/cgwatch/cgwatch.conf")" != "# edited by packaging.sh" ]; then
	fail install-keeps-config "make install overwrote an existing $ROOT/etc/cgwatch/cgwatch.conf"
elif ! grep -q "kept $ROOT/etc/cgwatch/cgwatch.conf" <<<"$out"; then
	fail install-keeps-config "kept the config silently: $(oneline <<<"$out")"
else
	pass install-keeps-config
fi

# (b) both units, as installed, pointed at the installed binary, pass systemd-analyze verify;
# MANPATH makes Documentation=man:cgwatch(8) resolve. verify exits 0 on unknown keys, so any
# output is a failure: a misspelt or too-new directive would silently not protect anything.
if ! command -v systemd-analyze >/dev/null; then
	skip unit-verify "no systemd-analyze"
	skip unit-exposure "no systemd-analyze"
else
	mkdir -p "$T/verify"
	for u in cgwatch.service cgwatch-check.service; do
		sed "s|/usr/sbin/cgwatch|$ROOT/usr/sbin/cgwatch|" "$ROOT/lib/systemd/system/$u" >"$T/verify/$u"
		out=$(MANPATH=$ROOT/usr/share/man systemd-analyze verify "$T/verify/$u" 2>&1)
		rc=$?
		if [ $rc != 0 ] || [ -n "$out" ]; then
			fail "unit-verify-${u%.service}" "exit $rc: $(oneline <<<"$out")"
		else
			pass "unit-verify-${u%.service}"
		fi
	done
	# the daemon's sandbox: not looser than when it was written
	out=$(systemd-analyze security --offline=yes "$T/verify/cgwatch.service" 2>&1)
	level=$(sed -n 's/.*Overall exposure level for cgwatch.service: \([0-9.]*\).*/\1/p' <<<"$out")
	if [ -z "$level" ]; then
		skip unit-exposure "systemd-analyze security --offline=yes gave no level (systemd < 250?): $(tail -1 <<<"$out" | oneline)"
	elif awk -v l="$level" -v m="$MAX_EXPOSURE" 'BEGIN { exit !(l <= m) }'; then
		pass unit-exposure
	else
		fail unit-exposure "exposure $level > $MAX_EXPOSURE: $(grep '✗' <<<"$out" | sed 's/  .*//' | oneline)"
	fi
fi

# (c) the catalog: journalctl compiles it offline (--root), lists one entry per signature and
# one for the hazard messages (HAZARD_MESSAGE_ID), each defined by cgwatch with a subject, a support line and a body, and names its signature.
CAT=$ROOT/usr/lib/systemd/catalog/cgwatch.catalog
if [ ! -s "$CAT" ]; then
	fail catalog "no $CAT (is \`cgwatch signatures --catalog\` there?)"
elif ! command -v journalctl >/dev/null; then
	skip catalog "no journalctl"
elif ! out=$(journalctl --root="$ROOT" --update-catalog 2>&1) || [ -n "$out" ]; then
	fail catalog "journalctl --update-catalog: $(oneline <<<"$out")"
elif ! list=$(journalctl --root="$ROOT" --list-catalog 2>&1); then
	fail catalog "journalctl --list-catalog: $(oneline <<<"$list")"
else
	why=""
	n=$(grep -c . <<<"$list")
	[ "$n" = "$ncat" ] || why="$why $n entries for $nsigs signatures and the hazards;"
	nid=$(grep -c '^-- [0-9a-f]\{32\}$' "$CAT")
	[ "$nid" = "$ncat" ] || why="$why $nid '-- <32 hex>' headers;"
	[ -n "$HAZARD_MID" ] && grep -qx -- "-- $HAZARD_MID" "$CAT" &&
		grep -q "^$HAZARD_MID cgwatch: cgwatch hazard " <<<"$list" ||
		why="$why no hazard entry (-- ${HAZARD_MID:-no HAZARD_MESSAGE_ID in src/cgwatch.h});"
	dup=$(grep '^-- ' "$CAT" | sort | uniq -d | oneline)
	[ -z "$dup" ] || why="$why duplicate ids: $dup;"
	notours=$(grep -v '^[0-9a-f]\{32\} cgwatch: ' <<<"$list" | head -2 | oneline)
	[ -z "$notours" ] || why="$why not Defined-By cgwatch: $notours;"
	# every entry: Subject:, Defined-By:, Support:, a blank line, then text
	why="$why$(awk '
		function check() {
			if (id != "" && !(subj && def && sup && body)) printf " entry %s lacks%s%s%s%s;", id,
				subj ? "" : " Subject", def ? "" : " Defined-By", sup ? "" : " Support", body ? "" : " text"
		}
		/^-- [0-9a-f]+$/ { check(); id = $2; subj = def = sup = body = inhdr = 0; inhdr = 1; next }
		id == "" { next }
		inhdr && /^Subject: ./ { subj = 1; next }
		inhdr && /^Defined-By: cgwatch$/ { def = 1; next }
		inhdr && /^Support: ./ { sup = 1; next }
		inhdr && /^$/ { inhdr = 0; next }
		!inhdr && /[^ ]/ { body = 1 }
		END { check() }' "$CAT")"
	for f in conf/signatures.d/*.conf; do
		id=$(basename "$f" .conf)
		grep -qw -- "$id" "$CAT" || why="$why no entry names $id;"
	done
	if [ -n "$why" ]; then
		why=${why# }
		fail catalog "$(cut -c1-400 <<<"${why%;}")"
	else
		pass catalog
	fi
fi

# (d) the installed cgwatch.conf (and the shipped defaults) pass the installed binary's check
for f in etc/cgwatch/cgwatch.conf usr/share/cgwatch/cgwatch.conf; do
	name=config-check-$([ "${f%%/*}" = etc ] && echo installed || echo defaults)
	out=$("$ROOT/usr/sbin/cgwatch" config --check --config "$ROOT/$f" 2>&1)
	rc=$?
	if [ $rc != 0 ] || [ "$out" != "configuration OK" ]; then
		fail "$name" "cgwatch config --check --config $f: exit $rc: $(oneline <<<"$out")"
	else
		pass "$name"
	fi
done

# the man pages format without warnings
if ! command -v groff >/dev/null; then
	skip man-pages "no groff"
else
	why=""
	for f in usr/share/man/man8/cgwatch.8 usr/share/man/man5/cgwatch.conf.5; do
		out=$(groff -man -ww -z "$ROOT/$f" 2>&1)
		[ -z "$out" ] || why="$why $f: $(oneline <<<"$out");"
	done
	if [ -n "$why" ]; then
		why=${why# }
		fail man-pages "${why%;}"
	else
		pass man-pages
	fi
fi

# (e) the Debian package. Built into $T/build/deb (`make deb`'s $(BUILD)/deb), its temporary
# copy of the tree under $T/tmp; it must leave this tree and its parent as they were.
deb_section() {
	local deb out rc why ver arch tag tags unexpected err f files missing extra x
	if ! command -v dpkg-buildpackage >/dev/null || ! command -v dh >/dev/null; then
		skip deb "no dpkg-buildpackage or dh (dpkg-dev, debhelper: make deps)"
		return
	fi
	mkdir -p "$T/tmp"
	local git_before="" git_after="" parent_before parent_after
	git rev-parse --git-dir >/dev/null 2>&1 && git_before=$(git status --porcelain --ignored=no)
	# what dpkg-buildpackage writes into the parent of the tree it builds
	parent_before=$(ls -A .. | grep -E '^cgwatch(-dbgsym)?_')
	TMPDIR=$T/tmp DEB_BUILD_OPTIONS="parallel=$(nproc)" timeout -k 10 300 make deb BUILD="$T/build" >"$T/deb.log" 2>&1
	rc=$?
	git rev-parse --git-dir >/dev/null 2>&1 && git_after=$(git status --porcelain --ignored=no)
	parent_after=$(ls -A .. | grep -E '^cgwatch(-dbgsym)?_')
	ver=$(dpkg-parsechangelog -SVersion 2>/dev/null)
	arch=$(dpkg --print-architecture)
	deb=$T/build/deb/cgwatch_${ver}_${arch}.deb
	why=""
	[ $rc = 0 ] || why="make deb: exit $rc$([ $rc = 124 ] && echo " (timed out after 300 s)"): $(grep -v '^ ' "$T/deb.log" | tail -3 | oneline);"
	[ -f "$deb" ] || why="$why no $deb;"
	[ "$(readlink "$T/build/deb/cgwatch.deb")" = "${deb##*/}" ] || why="$why $T/build/deb/cgwatch.deb is no link to ${deb##*/};"
	[ "$git_before" = "$git_after" ] || why="$why the tree changed: $(diff <(echo "$git_before") <(echo "$git_after") | grep '^[<>]' | oneline);"
	[ "$parent_before" = "$parent_after" ] || why="$why left in ..: $(diff <(echo "$parent_before") <(echo "$parent_after") | grep '^>' | oneline);"
	x=$(ls -A "$T/tmp")
	[ -z "$x" ] || why="$why left in TMPDIR: $(oneline <<<"$x");"
	if [ -n "$why" ]; then
		why=${why# }
		fail deb-build "${why%;}"
		[ -f "$deb" ] || return
	else
		pass deb-build
		[ -z "${DEB_KEEP:-}" ] || cp "$deb" "$DEB_KEEP/" || fail deb-keep "cp $deb $DEB_KEEP/ failed"
	fi

	# lintian: no error, and no tag (shown or overridden) outside LINTIAN_ALLOWED
	if ! command -v lintian >/dev/null; then
		skip deb-lintian "no lintian (make deps)"
	else
		out=$(timeout 120 lintian -I --show-overrides "$deb" 2>"$T/lintian.err")
		rc=$?
		tags=$(sed -n 's/^\([EWIXPO]\): cgwatch[^:]*: \([^ ]*\).*/\1 \2/p' <<<"$out")
		unexpected=$(while read -r x tag; do
			[ -n "$tag" ] || continue
			{ [ "$x" != E ] && printf '%s\n' "${LINTIAN_ALLOWED[@]}" | grep -qxF "$tag"; } || echo "$x:$tag"
		done <<<"$tags" | sort -u | oneline)
		err=$(grep -v 'running with root privileges is not recommended' "$T/lintian.err" | oneline)
		if [ $rc != 0 ] || [ -n "$unexpected" ] || [ -n "$err" ]; then
			fail deb-lintian "exit $rc; tags not in LINTIAN_ALLOWED (justify in README section 7): ${unexpected:-none}${err:+; stderr: $err}"
		else
			pass deb-lintian
		fi
	fi

	# the files: what make install lays out (man pages compressed), the docs, nothing else
	files=$(dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./||' | grep -v '^$' | sort)
	local want=(usr/share/lintian/overrides/cgwatch) docs=(copyright changelog.gz README.gz)
	for f in "${expected[@]}"; do
		case $f in usr/share/man/*) want+=("$f.gz") ;; *) want+=("$f") ;; esac
	done
	for f in docs/*.md; do docs+=("${f#docs/}.gz"); done
	for f in "${docs[@]}"; do want+=("usr/share/doc/cgwatch/$f"); done
	missing=$(for f in "${want[@]}"; do grep -qxF "$f" <<<"$files" || printf ' %s' "$f"; done)
	extra=$(grep -v '/$' <<<"$files" | while read -r f; do
		printf '%s\n' "${want[@]}" | grep -qxF "$f" || printf ' %s' "$f"
	done)
	why=""
	[ -z "$missing" ] || why="missing:$missing;"
	[ -z "$extra" ] || why="$why unexpected files:$extra;"
	# the packaged units run /usr/sbin/cgwatch; the binary holds the library; the catalog
	# has an entry per signature
	dpkg-deb -x "$deb" "$T/debroot"
	for f in cgwatch.service cgwatch-check.service; do
		grep -q '^ExecStart=/usr/sbin/cgwatch ' "$T/debroot/lib/systemd/system/$f" 2>/dev/null ||
			why="$why $f: no ExecStart=/usr/sbin/cgwatch;"
	done
	out=$(env -i "$T/debroot/usr/sbin/cgwatch" signatures --config "$T/builtin-only.conf" 2>&1)
	x=$(grep -c ' (built in)$' <<<"$out")
	[ "$x" = "$nsigs" ] || why="$why packaged cgwatch lists $x built-in signatures for $nsigs files;"
	x=$(grep -c '^-- [0-9a-f]\{32\}$' "$T/debroot/usr/lib/systemd/catalog/cgwatch.catalog" 2>/dev/null)
	[ "$x" = "$ncat" ] || why="$why catalog: ${x:-no} entries for $nsigs signatures and the hazards;"
	if [ -n "$why" ]; then
		why=${why# }
		fail deb-contents "$(cut -c1-400 <<<"${why%;}")"
	else
		pass deb-contents
	fi

	# the configuration is the admin's: dpkg keeps an edited cgwatch.conf across upgrades
	x=$(dpkg-deb -I "$deb" conffiles 2>&1)
	if [ "$x" != /etc/cgwatch/cgwatch.conf ]; then
		fail deb-conffiles "conffiles: $(oneline <<<"${x:-none}") (want /etc/cgwatch/cgwatch.conf)"
	else
		pass deb-conffiles
	fi

	# the maintainer scripts: the daemon enabled and started (restarted on upgrade), stopped
	# on remove, its enablement purged; the one-shot check neither enabled nor started
	mkdir -p "$T/control"
	dpkg-deb -e "$deb" "$T/control"
	why=""
	grep -q "deb-systemd-helper enable 'cgwatch.service'" "$T/control/postinst" 2>/dev/null ||
		why="$why postinst does not enable cgwatch.service;"
	grep -q "deb-systemd-invoke \$_dh_action 'cgwatch.service'" "$T/control/postinst" 2>/dev/null ||
		why="$why postinst does not start cgwatch.service;"
	grep -q "cgwatch-check" "$T/control/postinst" 2>/dev/null &&
		why="$why postinst enables or starts cgwatch-check.service: $(grep cgwatch-check "$T/control/postinst" | oneline);"
	grep -q "deb-systemd-invoke stop 'cgwatch.service'" "$T/control/prerm" 2>/dev/null ||
		why="$why prerm does not stop cgwatch.service;"
	grep -q "deb-systemd-helper purge 'cgwatch.service'" "$T/control/postrm" 2>/dev/null ||
		why="$why postrm does not purge the unit's enablement;"
	if [ -n "$why" ]; then
		why=${why# }
		fail deb-maintscripts "${why%;}"
	else
		pass deb-maintscripts
	fi

	# purge, run for real: the package's own postrm lines (up to debhelper's, which would act
	# on this host's systemd) under DPKG_ROOT, on the layout DynamicUser= gives the daemon's
	# state and reports. Remove keeps them; purge takes them and an empty /etc/cgwatch, and
	# keeps a signature an admin added and what is not cgwatch's.
	sed '/^# Automatically added by dh_/,$d' "$T/control/postrm" >"$T/postrm-own"
	echo 'exit 0' >>"$T/postrm-own"
	if ! grep -q DPKG_ROOT "$T/postrm-own"; then
		fail deb-purge "postrm does not honour DPKG_ROOT: not run on this host"
		return
	fi
	local R
	why=""
	for R in "$T/purge1" "$T/purge2"; do
		mkdir -p "$R/var/lib/private/cgwatch" "$R/var/log/private/cgwatch" "$R/var/lib/private/other" \
			"$R/etc/cgwatch/signatures.d" "$R/etc/cgwatch/hazards.d"
		echo '{}' >"$R/var/lib/private/cgwatch/incidents.json"
		echo report >"$R/var/log/private/cgwatch/report.txt"
		echo keep >"$R/var/lib/private/other/keep"
		ln -s private/cgwatch "$R/var/lib/cgwatch"
		ln -s private/cgwatch "$R/var/log/cgwatch"
	done
	echo '# the admin'"'"'s' >"$T/purge2/etc/cgwatch/signatures.d/local.conf"
	echo '# the admin'"'"'s' >"$T/purge2/etc/cgwatch/hazards.d/local.conf"
	R=$T/purge1
	DPKG_ROOT=$R sh -e "$T/postrm-own" remove || why="$why postrm remove failed;"
	[ -f "$R/var/lib/cgwatch/incidents.json" ] && [ -f "$R/var/log/cgwatch/report.txt" ] ||
		why="$why remove took the state or the reports;"
	DPKG_ROOT=$R sh -e "$T/postrm-own" purge || why="$why postrm purge failed;"
	x=$(cd "$R" && find . -path '*cgwatch*' | oneline)
	[ -z "$x" ] || why="$why purge left: $x;"
	[ -f "$R/var/lib/private/other/keep" ] || why="$why purge removed var/lib/private/other;"
	R=$T/purge2
	DPKG_ROOT=$R sh -e "$T/postrm-own" purge || why="$why postrm purge (admin's signature) failed;"
	[ -f "$R/etc/cgwatch/signatures.d/local.conf" ] || why="$why purge removed an admin's signature;"
	[ -f "$R/etc/cgwatch/hazards.d/local.conf" ] || why="$why purge removed an admin's hazard rule;"
	x=$(cd "$R" && find var -path '*cgwatch*' | oneline)
	[ -z "$x" ] || why="$why purge left: $x;"
	if [ -n "$why" ]; then
		why=${why# }
		fail deb-purge "${why%;}"
	else
		pass deb-purge
	fi
}
deb_section

[ $fails = 0 ]
