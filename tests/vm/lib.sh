# Shared code for the VM tests; sourced by every tests/vm/NAME.sh. They boot a real Debian
# kernel that has the latency tracers this host's kernel lacks (timerlat, osnoise, hwlat:
# linux-image-rt-amd64, the PREEMPT_RT flavour; the generic one has none of them) in a qemu
# VM with an initramfs of busybox, bash, jq, the cgwatch binary under test ($CGWATCH, with
# every library ldd lists) and tests/live/spin, and run a guest script there. Built on
# tests/live/lib.sh, whose conventions hold (live_on_exit, live_pass/fail/skip, LIVE_BUDGET,
# live_mktemp, LIVE_DEBUG=1): one result line,
#   PASS vm-NAME[: note] | FAIL vm-NAME: reason | SKIP vm-NAME: reason
#
# Writing a scenario: two files.
#
#   tests/vm/NAME.sh, the host side (add NAME to SCENARIOS_ALL in tests/vm/run.sh):
#       . "$(dirname "$0")/lib.sh"
#       vm_init NAME                 # root, qemu, busybox, helpers, the kernel: else SKIP
#       vm_file "$VM_DIR/NAME.conf" /etc/cgwatch/cgwatch.conf   # optional: extra files
#       vm_bin "$LIVE_BIN/hog"       # optional: another program, with its libraries
#       vm_env SPIN_MS=20 SLEEP_MS=1 # optional: variables the guest script sees
#       vm_module fuse               # optional: a kernel module the guest needs (see below;
#                                    # or VM_MODULES_WANT="fuse" before vm_init: one download)
#       VM_APPEND="isolcpus=1"       # optional: more kernel arguments
#       vm_boot "$VM_DIR/NAME.guest.sh" ARG...   # boots, runs it, powers off
#       vm_result                    # the guest's lines -> this scenario's one line
#   Between vm_boot and vm_result the host side may look at $VM_OUT (the guest script's
#   output) itself, and fail on its own terms.
#
#   tests/vm/NAME.guest.sh, the guest side (bash, run as root in the VM with ARGs):
#       . "${VM_GUEST_LIB:-/vm/lib.sh}"     # tests/vm/guest-lib.sh: T, g_pass/g_fail/g_skip,
#                                           # g_run (bounded), g_spin (tests/live/spin)
#       grep -qw timerlat "$T/available_tracers" || { g_skip timerlat "no timerlat"; exit 0; }
#       g_spin SP 1 99 10 "$SPIN_MS" "$SLEEP_MS" || g_fail setup "no spinner: $(cat /tmp/SP.out)"
#       g_run /tmp/r.json /tmp/r.err 30 cgwatch runq --interval 2 --config /vm/files/NAME.conf
#       jq -e '...' /tmp/r.json && g_pass timerlat "..." || g_fail timerlat "$(head -c 300 /tmp/r.json)"
#   Everything it prints goes to the host ($VM_OUT; stderr too); only the lines starting
#   PASS/FAIL/SKIP are results, one per check. vm_result: any FAIL fails the scenario (with
#   every FAIL line), else any PASS passes it (with the notes, the VM's time and
#   accelerator), else SKIP; no result line, a guest exit status other than 0 (137: killed
#   at VM_GUEST_TIMEOUT), or no exit marker (the kernel did not boot, crashed or hung) is a
#   FAIL with the tail of the console. tracers.guest.sh is a worked example: timerlat in a
#   tracefs instance on CPU 1 beside a FIFO 99 spinner, its `trace` parsed with awk.
#   In the guest: /proc, /sys, /dev (devtmpfs, /dev/fd), /sys/kernel/tracing, /sys/fs/cgroup
#   (cgroup2, no controller enabled) and tmpfs /tmp and /run are mounted; /var/lib and
#   /var/log exist; no systemd, no journal (`cgwatch run` writes to stderr). cgwatch is
#   /usr/sbin/cgwatch, spin /usr/bin/spin; files are in /vm/files unless vm_file gave them a
#   place; VM_ACCEL says kvm or tcg. Under TCG the guest's latencies are the emulator's: a
#   timer IRQ 0.1-0.3 ms late, and a sample now and then several ms late for nothing (2 of
#   839 over 10 ms in 1 s, more on a loaded host); a 20 ms FIFO spin stands well above that.
#   The VM is thrown away afterwards, so the guest script need not clean up (sysctls, tracefs
#   instances, cgroups). For that reason, run one on the host (VM_GUEST_LIB=tests/vm/guest-lib.sh
#   bash NAME.guest.sh, to see its checks fail on a kernel without the tracers) only when it
#   changes nothing there.
#
# The kernel: the package linux-image-rt-amd64 depends on (apt-cache), downloaded once with
# apt-get download (bounded by VM_DOWNLOAD_TIMEOUT, 180 s) and its boot/vmlinuz and config
# extracted with dpkg-deb into $CGWATCH_TEST_CACHE/vm/PACKAGE/ (/var/cache/cgwatch-tests);
# nothing is installed. When the current one cannot be downloaded, a kernel of the same
# package cached earlier is used (a cache directory matching VM_KERNEL_CACHED_RE); with none,
# the scenario is SKIPped with the reason.
#
# Kernel modules: the initramfs has none, and a generic kernel builds many things as modules
# (CONFIG_FUSE_FS=m). vm_module NAME... after vm_init: each module NAME, with the modules its
# .modinfo says it depends on, is taken from the same .deb at the download (once per kernel
# and module: a kernel cached without it is downloaded again for it), decompressed (.ko.xz,
# .ko.zst) into $VM_CACHE/PACKAGE/modules/ with modules/NAME.order (the files in load order;
# empty where the kernel has NAME built in), put into the guest as /vm/modules/*.ko, and
# loaded by /init with busybox insmod before the guest script runs (what insmod said is in
# /tmp/insmod.log, the loaded ones in /proc/modules). With VM_KERNEL there are none.
#
# The accelerator: KVM (-cpu host) where /dev/kvm is usable by a stock kernel; else qemu's
# TCG, software emulation (-cpu max): slower, and its timings are the emulator's (a timer
# IRQ's latency is ~0.1 ms there, not a few us). A PVM host (the kvm_pvm module: /dev/kvm
# without VT-x/AMD-V, which runs only PVM-enlightened guest kernels; a stock kernel hangs
# after "Probing EDD") gets TCG. TCG runs both vCPUs in one host thread (thread=single): as
# fast here as a thread per vCPU (17-19 s for the smoke checks alone) on half the host CPU. (One run in
# about fifteen with a thread per vCPU hung for good, one host CPU busy, no message, before
# the kernel got noirqdebug below; 8 of 8 passed with it. Cause not found.) The guest sees
# VM_ACCEL (kvm or tcg).
#
# Environment (besides CGWATCH, LIVE_DEBUG):
#   VM_ACCEL          auto (default), kvm (SKIP where /dev/kvm is not usable) or tcg
#   VM_TCG_THREAD     single (default) or multi: TCG's vCPUs in one host thread or one each
#   VM_KERNEL         a vmlinuz to boot instead of the cached Debian one
#   VM_KERNEL_META    the package naming the kernel (default linux-image-rt-amd64)
#   VM_KERNEL_BPO_META  where apt-cache names no kernel for VM_KERNEL_META: the package
#                     whose kernel to take from bookworm-backports instead (_vm_bpo)
#   VM_KERNEL_CACHED_RE  which cache directories are that package's kernels, for the fallback
#                     above (a regex; default: the -rt-amd64 ones for linux-image-rt-amd64,
#                     else none)
#   VM_SMP, VM_MEM    vCPUs (2) and MiB (512)
#   VM_TIMEOUT        the whole VM, boot to poweroff (150 s; then the FAIL names where each
#                     vCPU is, from qemu's monitor and the kernel's symbols, and qemu is
#                     killed)
#   VM_GUEST_TIMEOUT  the guest script (120 s; killed after it: exit 137)
#   VM_APPEND         more kernel command line

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM_CACHE=${CGWATCH_TEST_CACHE:-/var/cache/cgwatch-tests}/vm
VM_KERNEL_META=${VM_KERNEL_META:-linux-image-rt-amd64}
if [ -z "${VM_KERNEL_CACHED_RE:-}" ]; then
	[ "$VM_KERNEL_META" = linux-image-rt-amd64 ] && VM_KERNEL_CACHED_RE='^linux-image-6\.1\.[0-9]+-[0-9]+-rt-amd64$' ||
		VM_KERNEL_CACHED_RE='^$'
fi
VM_SMP=${VM_SMP:-2}
VM_MEM=${VM_MEM:-512}
VM_TIMEOUT=${VM_TIMEOUT:-150}
VM_GUEST_TIMEOUT=${VM_GUEST_TIMEOUT:-120}
VM_DOWNLOAD_TIMEOUT=${VM_DOWNLOAD_TIMEOUT:-180}
VM_APPEND=${VM_APPEND:-}
LIVE_PREFIX=vm
# the VM's own bound, with room for building the initramfs and, the first time, the download
if [ -z "${LIVE_BUDGET:-}" ]; then
	LIVE_BUDGET=$((VM_TIMEOUT + 30))
	_vm_cached=
	for _d in "$VM_CACHE"/*/; do
		[ -s "$_d/vmlinuz" ] && basename "$_d" | grep -qE "$VM_KERNEL_CACHED_RE" || continue
		for _m in ${VM_MODULES_WANT:-}; do [ -f "$_d/modules/$_m.order" ] || continue 2; done
		_vm_cached=1
	done
	[ -n "$_vm_cached" ] || LIVE_BUDGET=$((LIVE_BUDGET + VM_DOWNLOAD_TIMEOUT))
fi
. "$VM_DIR/../live/lib.sh"

VM_FILES=()      # "SRC<tab>DEST" pairs for the initramfs, from vm_file
VM_BINS=()       # "SRC<tab>DEST", from vm_bin: copied with their libraries
VM_ENV=()        # VAR=VALUE, from vm_env
VM_MODULE_FILES=()  # the .ko files for the guest in load order, from vm_module
VM_APT_OPTS=()   # apt's options for a kernel from bookworm-backports (_vm_bpo)
VM_NOTE=         # how the kernel or accelerator was chosen, for the result line

# vm_init NAME: live_init, then what every VM scenario needs, or SKIP: root, qemu, a static
# busybox, bash, jq, the cgwatch binary, tests/live/spin, a temp dir, the accelerator and
# the kernel (VM_KERNEL_FILE).
vm_init() {
	live_init "$1"
	live_require_root
	live_require_tools qemu-system-x86_64 busybox bash jq ldd
	if ldd "$(command -v busybox)" >/dev/null 2>&1; then
		live_skip "busybox is not static ($(command -v busybox)): apt-get install busybox-static"
	fi
	live_require_helpers spin
	live_require_binary
	live_mktemp
	_vm_accel
	_vm_kernel
	[ -z "${VM_MODULES_WANT:-}" ] || vm_module $VM_MODULES_WANT
	vm_bin "$(command -v busybox)" /bin/busybox
	vm_bin "$(command -v bash)" /bin/bash
	vm_bin "$(command -v jq)" /usr/bin/jq
	vm_bin "$CGWATCH" /usr/sbin/cgwatch
	vm_bin "$LIVE_BIN/spin" /usr/bin/spin
}

# vm_file SRC [DEST]: SRC into the guest at DEST (absolute), default /vm/files/NAME.
vm_file() {
	[ -f "$1" ] || live_fail "setup: vm_file: no file $1"
	VM_FILES+=("$1"$'\t'"${2:-/vm/files/$(basename "$1")}")
}

# vm_bin SRC [DEST]: a program into the guest at DEST (default /usr/bin/NAME), with every
# shared library ldd lists for it (and the dynamic loader) at their paths.
vm_bin() {
	[ -x "$1" ] || live_fail "setup: vm_bin: no program $1"
	VM_BINS+=("$1"$'\t'"${2:-/usr/bin/$(basename "$1")}")
}

# vm_env VAR=VALUE...: exported to the guest script.
vm_env() {
	local a
	for a; do
		[[ "$a" =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || live_fail "setup: vm_env: not VAR=VALUE: $a"
		VM_ENV+=("$a")
	done
}

# vm_module NAME...: these kernel modules (and what they depend on) into the guest, loaded by
# /init (see the header). FAILs when the kernel's package cannot give them.
vm_module() {
	local m f err
	[ -n "${VM_KERNEL_PKG:-}" ] || return 0       # VM_KERNEL: a vmlinuz of its own, no modules
	for m; do
		if [ ! -f "$VM_CACHE/$VM_KERNEL_PKG/modules/$m.order" ]; then
			err=$(_vm_download "$VM_KERNEL_PKG" "$m" 2>&1) ||
				live_skip "module $m of $VM_KERNEL_PKG (not cached yet): $err"
		fi
		while read -r f; do
			[ -n "$f" ] || continue
			[ -s "$VM_CACHE/$VM_KERNEL_PKG/modules/$f" ] ||
				live_fail "setup: module $m of $VM_KERNEL_PKG: $f missing from the cache"
			VM_MODULE_FILES+=("$VM_CACHE/$VM_KERNEL_PKG/modules/$f")
		done <"$VM_CACHE/$VM_KERNEL_PKG/modules/$m.order"
	done
}

# _vm_accel: VM_ACCEL (auto, kvm, tcg) -> VM_QEMU_ACCEL (qemu's arguments) and VM_ACCEL.
_vm_accel() {
	local want=${VM_ACCEL:-auto} why=
	if [ ! -e /dev/kvm ]; then
		why="no /dev/kvm"
	elif ! { : <>/dev/kvm; } 2>/dev/null; then
		why="/dev/kvm not usable"
	elif [ -d /sys/module/kvm_pvm ]; then
		why="/dev/kvm is PVM (kvm_pvm), which runs only PVM guest kernels"
	fi
	case $want in
	auto) [ -z "$why" ] && want=kvm || want=tcg ;;
	kvm) [ -z "$why" ] || live_skip "VM_ACCEL=kvm: $why" ;;
	tcg) why="VM_ACCEL=tcg" ;;
	*) live_fail "VM_ACCEL is $want: auto, kvm or tcg" ;;
	esac
	VM_ACCEL=$want
	if [ "$want" = kvm ]; then
		VM_QEMU_ACCEL=(-accel kvm -cpu host)
	else
		VM_QEMU_ACCEL=(-accel "tcg,thread=${VM_TCG_THREAD:-single}" -cpu max)
		VM_NOTE=$why
	fi
}

# _vm_kernel: VM_KERNEL_FILE, the vmlinuz to boot, and VM_KERNEL_PKG, its package (see the
# header), or SKIP.
_vm_kernel() {
	local pkg err cached
	VM_KERNEL_PKG=
	if [ -n "${VM_KERNEL:-}" ]; then
		[ -f "$VM_KERNEL" ] || live_fail "VM_KERNEL=$VM_KERNEL: no such file"
		VM_KERNEL_FILE=$VM_KERNEL
		return
	fi
	pkg=$(timeout 30 apt-cache depends "$VM_KERNEL_META" 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }')
	if [ -z "$pkg" ] && [ -n "${VM_KERNEL_BPO_META:-}" ]; then
		_vm_bpo "$VM_KERNEL_BPO_META" >"$LIVE_TMP/bpo.pkg" 2>"$LIVE_TMP/bpo.err"
		pkg=$(cat "$LIVE_TMP/bpo.pkg")
		[ -n "$pkg" ] || VM_APT_OPTS=()
	fi
	if [ -n "$pkg" ] && [ -s "$VM_CACHE/$pkg/vmlinuz" ]; then
		VM_KERNEL_FILE=$VM_CACHE/$pkg/vmlinuz VM_KERNEL_PKG=$pkg
		return
	fi
	if [ -z "$pkg" ]; then
		err="apt-cache names no kernel for $VM_KERNEL_META (apt-get update?)${VM_KERNEL_BPO_META:+; nor bookworm-backports for $VM_KERNEL_BPO_META: $(head -c 200 "$LIVE_TMP/bpo.err")}"
	else
		live_require_tools apt-get dpkg-deb tar flock
		mkdir -p "$VM_CACHE" || live_fail "mkdir $VM_CACHE"
		err=$(_vm_download "$pkg" ${VM_MODULES_WANT:-} 2>&1) && { VM_KERNEL_FILE=$VM_CACHE/$pkg/vmlinuz VM_KERNEL_PKG=$pkg; return; }
	fi
	cached=$(ls -t "$VM_CACHE"/*/vmlinuz 2>/dev/null | while read -r f; do
		basename "$(dirname "$f")" | grep -E "$VM_KERNEL_CACHED_RE" >/dev/null && { echo "$f"; break; }
	done)
	[ -n "$cached" ] || live_skip "no kernel for the VM: $err"
	VM_KERNEL_FILE=$cached VM_KERNEL_PKG=$(basename "$(dirname "$cached")")
	VM_NOTE="${VM_NOTE:+$VM_NOTE; }kernel cached earlier ($err)"
}

# _vm_bpo META: where the machine's apt does not name the kernel, the one META depends on in
# bookworm-backports, through an apt configuration of the cache's own ($VM_CACHE/.apt-bpo: a
# sources list of bookworm-backports on the mirror the machine's bookworm comes from, lists
# and caches there, refreshed once a day, bounded by VM_DOWNLOAD_TIMEOUT); the machine's apt
# configuration is not touched. The package on stdout, VM_APT_OPTS set for _vm_download.
_vm_bpo() {
	local d=$VM_CACHE/.apt-bpo uri
	VM_APT_OPTS=(-o "Dir::Etc::SourceList=$d/sources.list" -o "Dir::Etc::SourceParts=$d/parts"
		-o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache" -o APT::Sandbox::User=root)
	mkdir -p "$d/parts" "$d/lists/partial" "$d/cache/archives/partial" || return 1
	if [ -z "$(find "$d/lists" -maxdepth 1 -name '*_Packages*' -mtime -1 2>/dev/null)" ]; then
		uri=$(timeout 30 apt-cache policy 2>/dev/null | awk '$3 ~ /^bookworm\/main$/ { print $2; exit }')
		[ -n "$uri" ] || { echo "no bookworm/main in apt-cache policy to take the mirror from" >&2; return 1; }
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri bookworm-backports main" >"$d/sources.list"
		timeout -k 5 "$VM_DOWNLOAD_TIMEOUT" apt-get "${VM_APT_OPTS[@]}" -q update >"$d/update.log" 2>&1 </dev/null ||
			{ echo "apt-get update of bookworm-backports: $(grep -m2 -E '^(E|W):' "$d/update.log" | tr '\n' ' ')" >&2; return 1; }
	fi
	timeout 30 apt-cache "${VM_APT_OPTS[@]}" depends "$1" 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }'
}

# _vm_download PKG [MODULE...]: apt-get download PKG into a temp dir of the cache, extract
# boot/vmlinuz-* and config-* as $VM_CACHE/PKG/{vmlinuz,config} (when not there yet) and each
# MODULE with its dependencies (_vm_modules); the .deb is removed. (Its System.map is a
# stub: the first boot writes the guest's own text symbols as kallsyms beside them, which
# name a hung VM's vCPUs' places, the kernel booting with nokaslr: see vcpus.py.) Under a lock (another
# scenario may be downloading the same); its error on stderr.
_vm_download() (
	local pkg=$1 tmp rc m need=
	shift
	exec 9>"$VM_CACHE/.lock"
	flock -w "$VM_DOWNLOAD_TIMEOUT" 9 || { echo "another download holds $VM_CACHE/.lock"; exit 1; }
	for m; do [ -f "$VM_CACHE/$pkg/modules/$m.order" ] || need+=" $m"; done
	[ -s "$VM_CACHE/$pkg/vmlinuz" ] && [ -z "$need" ] && exit 0
	tmp=$(mktemp -d "$VM_CACHE/.dl.XXXXXX") || exit 1
	trap 'rm -rf "$tmp"' EXIT
	cd "$tmp" || exit 1
	timeout -k 5 "$VM_DOWNLOAD_TIMEOUT" apt-get download -q -o APT::Sandbox::User=root ${VM_APT_OPTS[@]+"${VM_APT_OPTS[@]}"} "$pkg" \
		>apt.log 2>&1 </dev/null
	rc=$?
	if [ $rc != 0 ]; then
		[ $rc = 124 ] && echo "apt-get download $pkg: no answer within $VM_DOWNLOAD_TIMEOUT s" ||
			echo "apt-get download $pkg failed: $(grep -m2 -E '^(E|W):' apt.log | tr '\n' ' ')"
		exit 1
	fi
	if [ ! -s "$VM_CACHE/$pkg/vmlinuz" ]; then
		dpkg-deb --fsys-tarfile ./"$pkg"_*.deb | tar -x ./boot 2>tar.err ||
			{ echo "dpkg-deb -x $pkg: $(head -c 200 tar.err)"; exit 1; }
		set -- boot/vmlinuz-*
		[ $# = 1 ] && [ -s "$1" ] || { echo "$pkg has no boot/vmlinuz-* (or several)"; exit 1; }
		mkdir -p "$pkg.new" && mv "$1" "$pkg.new/vmlinuz" && mv boot/config-* "$pkg.new/config" &&
			rm -rf "${VM_CACHE:?}/$pkg" && mv "$pkg.new" "$VM_CACHE/$pkg" || exit 1
	fi
	[ -z "$need" ] || _vm_modules "$pkg" $need
)

# _vm_modules PKG MODULE...: in _vm_download's temp dir, with PKG's .deb there: each MODULE's
# .ko (and those its modinfo "depends=" names, before it) from the .deb's lib/modules,
# decompressed into $VM_CACHE/PKG/modules/, and MODULE.order listing them in load order
# (empty when the .deb has no MODULE.ko*: the kernel has it built in, which its config says).
_vm_modules() {
	local pkg=$1 m dir=$VM_CACHE/$1/modules
	shift
	dpkg-deb --fsys-tarfile ./"$pkg"_*.deb | tar -t >files.txt 2>tar.err ||
		{ echo "dpkg-deb -c $pkg: $(head -c 200 tar.err)"; return 1; }
	mkdir -p "$dir" || return 1
	for m; do
		: >order
		_vm_module_one "$pkg" "$m" top || return 1
		mv order "$dir/$m.order" || return 1
	done
}

# _vm_module_one PKG NAME [top]: NAME's dependencies, then NAME, into $dir and ./order (once)
_vm_module_one() {
	local pkg=$1 m=$2 re path ko d
	grep -qx "$m.ko" order && return 0
	re="^\./lib/modules/[^/]+/kernel/.*/($m|${m//_/-}|${m//-/_})\.ko(\.xz|\.zst|\.gz)?$"
	path=$(grep -m1 -E "$re" files.txt)
	if [ -z "$path" ]; then
		[ "${3:-}" = top ] && return 0       # built in
		echo "$pkg: $m.ko, a dependency, is not in the package"
		return 1
	fi
	dpkg-deb --fsys-tarfile ./"$pkg"_*.deb | tar -x "$path" 2>tar.err ||
		{ echo "extracting $path: $(head -c 200 tar.err)"; return 1; }
	ko=$dir/$m.ko
	case $path in
	*.xz) xz -dc "$path" >"$ko" ;;
	*.zst) zstd -qdc "$path" >"$ko" ;;
	*.gz) gzip -dc "$path" >"$ko" ;;
	*) cp "$path" "$ko" ;;
	esac || { echo "decompressing $path failed"; return 1; }
	for d in $(tr '\0' '\n' <"$ko" | sed -n 's/^depends=//p' | tr ',' ' '); do
		_vm_module_one "$pkg" "$d" || return 1
	done
	echo "$m.ko" >>order
}

# _vm_copy_bin SRC DEST ROOT: SRC at ROOT/DEST, its libraries at their paths under ROOT.
_vm_copy_bin() {
	local src=$1 dest=$2 root=$3 lib
	mkdir -p "$root$(dirname "$dest")" && cp -L "$src" "$root$dest" || return 1
	for lib in $(ldd "$src" 2>/dev/null | grep -o '/[^ ]*'); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")" && cp -L "$lib" "$root$lib" || return 1
	done
}

# _vm_initramfs GUEST ARGS...: $LIVE_TMP/initramfs.cpio (uncompressed: under TCG the
# kernel's gunzip costs seconds) with /init, /vm/{guest.sh,lib.sh,run.sh}, the programs and
# the files.
_vm_initramfs() {
	local guest=$1 root=$LIVE_TMP/root e a
	shift
	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,run,root,var/lib,var/log,vm/files} ||
		live_fail "setup: mkdir $root"
	for e in "${VM_BINS[@]}"; do
		_vm_copy_bin "${e%%$'\t'*}" "${e#*$'\t'}" "$root" || live_fail "setup: copy ${e%%$'\t'*} into the initramfs"
	done
	for a in $("$root/bin/busybox" --list); do
		[ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
	done
	for e in "${VM_FILES[@]}"; do
		mkdir -p "$root$(dirname "${e#*$'\t'}")" && cp -L "${e%%$'\t'*}" "$root${e#*$'\t'}" ||
			live_fail "setup: copy ${e%%$'\t'*} into the initramfs"
	done
	cp "$guest" "$root/vm/guest.sh" && cp "$VM_DIR/guest-lib.sh" "$root/vm/lib.sh" ||
		live_fail "setup: copy the guest script"
	if [ ${#VM_MODULE_FILES[@]} -gt 0 ]; then
		mkdir -p "$root/vm/modules" || live_fail "setup: mkdir /vm/modules"
		for e in "${VM_MODULE_FILES[@]}"; do
			cp "$e" "$root/vm/modules/" && basename "$e" >>"$root/vm/modules/order" ||
				live_fail "setup: copy $e into the initramfs"
		done
	fi
	VM_KSYMS=
	[ -n "${VM_KERNEL:-}" ] || VM_KSYMS=$(dirname "$VM_KERNEL_FILE")/kallsyms
	[ -z "$VM_KSYMS" ] || [ -s "$VM_KSYMS" ] || : >"$root/vm/dump-kallsyms"
	printf 'root:x:0:0:root:/root:/bin/bash\n' >"$root/etc/passwd"
	printf 'root:x:0:\n' >"$root/etc/group"
	{
		echo "export VM_ACCEL=$VM_ACCEL"
		for e in "${VM_ENV[@]}"; do printf 'export %q=%q\n' "${e%%=*}" "${e#*=}"; done
		printf 'exec bash /vm/guest.sh'
		for a; do printf ' %q' "$a"; done
		echo
	} >"$root/vm/run.sh"
	cat >"$root/init" <<-EOF
	#!/bin/sh
	# tests/vm/lib.sh: mount, run /vm/run.sh bounded, its output on ttyS1, a marker, power off
	export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
	mount -t devtmpfs devtmpfs /dev
	ln -s /proc/self/fd /dev/fd     # bash's <(...)
	ln -s fd/0 /dev/stdin; ln -s fd/1 /dev/stdout; ln -s fd/2 /dev/stderr
	mount -t tmpfs tmpfs /tmp
	mount -t tmpfs tmpfs /run
	mount -t tracefs tracefs /sys/kernel/tracing || echo "init: no tracefs" >/dev/console
	mount -t cgroup2 cgroup2 /sys/fs/cgroup || echo "init: no cgroup2" >/dev/console
	hostname cgwatch-vm
	# the modules vm_module named, in load order; what insmod said in /tmp/insmod.log
	for m in \$(cat /vm/modules/order 2>/dev/null); do
		insmod /vm/modules/\$m >>/tmp/insmod.log 2>&1 || echo "insmod \$m failed" >>/tmp/insmod.log
	done
	out=/dev/ttyS1
	stty -F \$out raw -echo 2>/dev/null
	# once per kernel, for the host's cache: the text symbols, before the start marker
	[ -e /vm/dump-kallsyms ] && grep ' [tT] ' /proc/kallsyms >\$out
	echo "CGWATCH-VM-START uptime \$(cut -d' ' -f1 /proc/uptime)" >\$out
	timeout -s KILL $VM_GUEST_TIMEOUT bash /vm/run.sh >\$out 2>&1 </dev/null
	rc=\$?
	echo "CGWATCH-VM-EXIT \$rc uptime \$(cut -d' ' -f1 /proc/uptime)" >\$out
	sync
	# poweroff -f drops what the UART has not sent yet: where a process the script left
	# still holds ttyS1, the echo's close is not the last and does not wait for the drain
	sleep 1
	poweroff -f
	EOF
	chmod +x "$root/init" || live_fail "setup: chmod /init"
	(cd "$root" && find . | busybox cpio -o -H newc >"$LIVE_TMP/initramfs.cpio" 2>/dev/null) ||
		live_fail "setup: could not write the initramfs"
}

# vm_boot GUEST [ARGS...]: build the initramfs, boot the VM, run GUEST with ARGS, wait for
# the poweroff (at most VM_TIMEOUT s). Sets VM_OUT (the guest script's output, \r removed),
# VM_CONSOLE (the kernel's console), VM_RC (the guest script's exit status; empty when no
# marker came), VM_SECS (qemu's start to its exit) and VM_UPTIME (the guest kernel's uptime at
# the marker). FAILs when qemu does not start or outlives VM_TIMEOUT.
vm_boot() {
	local t0 raw rc
	_vm_initramfs "$@"
	VM_CONSOLE=$LIVE_TMP/console.log VM_OUT=$LIVE_TMP/guest.out
	raw=$LIVE_TMP/guest.raw
	: >"$VM_CONSOLE"
	: >"$raw"
	live_on_exit _vm_kill_qemu
	t0=$(live_now)
	# nokaslr: a hung vCPU's RIP is an address of the cached kallsyms (vcpus.py); noirqdebug:
	# the PREEMPT_RT kernel, its 8250 handler threaded, took the emulated UART's interrupts
	# for spurious ones under a burst of output ("irq 3: nobody cared", then disabled it, and
	# the guest's next write to ttyS1 waited for ever)
	timeout -k 5 "$((VM_TIMEOUT + 20))" qemu-system-x86_64 -nodefaults -no-user-config \
		-nographic -display none -no-reboot -pidfile "$LIVE_TMP/qemu.pid" \
		-monitor "unix:$LIVE_TMP/mon.sock,server=on,wait=off" \
		"${VM_QEMU_ACCEL[@]}" -smp "$VM_SMP" -m "$VM_MEM" \
		-kernel "$VM_KERNEL_FILE" -initrd "$LIVE_TMP/initramfs.cpio" \
		-append "console=ttyS0 quiet panic=-1 nokaslr noirqdebug $VM_APPEND" \
		-serial "file:$VM_CONSOLE" -serial "file:$raw" \
		</dev/null >"$LIVE_TMP/qemu.err" 2>&1 3>&- &
	VM_TIMEOUT_PID=$!
	_vm_watch
	wait "$VM_TIMEOUT_PID"
	rc=$?
	VM_TIMEOUT_PID=
	_vm_unwatch
	VM_SECS=$(live_elapsed_since "$t0")
	tr -d '\r' <"$raw" | awk -v k="$LIVE_TMP/kallsyms" '/^CGWATCH-VM-START / { s = 1 }
		s { print; next } { print >k }' >"$VM_OUT"
	VM_RC=$(awk '$1 == "CGWATCH-VM-EXIT" { print $2 }' "$VM_OUT")
	VM_UPTIME=$(awk '$1 == "CGWATCH-VM-EXIT" { print $4 }' "$VM_OUT")
	if [ -n "$VM_RC" ] && [ -e "$LIVE_TMP/root/vm/dump-kallsyms" ] &&
		[ "$(grep -c '^ffffffff[0-9a-f]* [tT] ' "$LIVE_TMP/kallsyms" 2>/dev/null)" -gt 1000 ]; then
		cp "$LIVE_TMP/kallsyms" "$VM_KSYMS.$$" && mv -f "$VM_KSYMS.$$" "$VM_KSYMS"
	fi
	if [ "${LIVE_DEBUG:-0}" = 1 ]; then
		echo "--- qemu rc $rc, $VM_SECS s; console:" >&2
		tr -d '\r' <"$VM_CONSOLE" >&2
		echo "--- guest output:" >&2
		cat "$VM_OUT" >&2
	fi
	if [ -s "$LIVE_TMP/vcpus.txt" ] || [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		live_fail "the VM still ran after VM_TIMEOUT=$VM_TIMEOUT s ($VM_ACCEL); vCPUs then: $(head -c 400 "$LIVE_TMP/vcpus.txt" 2>/dev/null); $(_vm_tails)"
	fi
	[ -n "$VM_RC" ] || live_fail "no exit marker from the guest (qemu exit $rc after $VM_SECS s, $VM_ACCEL): $(head -c 300 "$LIVE_TMP/qemu.err"); $(_vm_tails)"
}

# _vm_watch: after VM_TIMEOUT s, where the vCPUs are (tests/vm/vcpus.py on qemu's monitor:
# $LIVE_TMP/vcpus.txt), then qemu killed. VM_WATCH_PID; _vm_unwatch ends it before then.
_vm_watch() {
	(
		trap - EXIT INT HUP USR1
		sleep "$VM_TIMEOUT" &
		s=$!
		trap 'kill $s; exit 0' TERM
		wait $s
		timeout -k 2 10 python3 "$VM_DIR/vcpus.py" "$LIVE_TMP/mon.sock" $VM_KSYMS >"$LIVE_TMP/vcpus.txt" 2>&1 ||
			echo "(vcpus.py failed)" >>"$LIVE_TMP/vcpus.txt"
		q=$(cat "$LIVE_TMP/qemu.pid" 2>/dev/null)
		[ -n "$q" ] && [ "$(cat "/proc/$q/comm" 2>/dev/null)" = qemu-system-x86 ] && kill -KILL "$q"
	) 3>&- &
	VM_WATCH_PID=$!
	live_on_exit _vm_unwatch
}
_vm_unwatch() {
	[ -n "${VM_WATCH_PID:-}" ] || return 0
	kill -TERM "$VM_WATCH_PID" 2>/dev/null
	wait "$VM_WATCH_PID" 2>/dev/null
	VM_WATCH_PID=
}

# the last lines of the console and of the guest's output, for a FAIL
_vm_tails() {
	printf 'console tail: %s; guest tail: %s' \
		"$(tr -d '\r' <"$VM_CONSOLE" | tr -cd '[:print:]\n' | grep -v '^[[:space:]]*$' | tail -8 | cut -c1-160 | tr '\n' '|')" \
		"$(tr -cd '[:print:]\n' <"$VM_OUT" | tail -5 | cut -c1-160 | tr '\n' '|')"
}

# qemu killed, then its timeout (our child) reaped once it has seen qemu go
_vm_kill_qemu() {
	local q
	q=$(cat "$LIVE_TMP/qemu.pid" 2>/dev/null)
	# qemu's pid file is removed when it exits; a stale number is checked by its name
	if [ -n "$q" ] && [ "$(cat "/proc/$q/comm" 2>/dev/null)" = qemu-system-x86 ]; then
		kill -KILL "$q" 2>/dev/null
	fi
	[ -n "${VM_TIMEOUT_PID:-}" ] || return 0
	live_wait_for 5 _live_gone_or_zombie "$VM_TIMEOUT_PID" || kill -KILL "$VM_TIMEOUT_PID" 2>/dev/null
	live_kill_wait "$VM_TIMEOUT_PID"
}

# vm_result: the scenario's one line from the guest's PASS/FAIL/SKIP lines (see the header).
vm_result() {
	_vm_verdict "$VM_OUT"
	case $V_RESULT in
	PASS) live_pass "$V_REASON" ;;
	SKIP) live_skip "$V_REASON" ;;
	*) live_fail "$V_REASON" ;;
	esac
}

# _vm_verdict FILE: the verdict of the guest's PASS/FAIL/SKIP lines in FILE as V_RESULT and
# V_REASON (vm_result's rules).
_vm_verdict() {
	local fails passes skips t
	fails=$(grep '^FAIL ' "$1" | cut -c6- | tr '\n' '|' | sed 's/|$//; s/|/; /g')
	passes=$(grep '^PASS ' "$1" | cut -c6- | tr '\n' '|' | sed 's/|$//; s/|/; /g')
	skips=$(grep '^SKIP ' "$1" | cut -c6- | tr '\n' '|' | sed 's/|$//; s/|/; /g')
	t="$VM_SECS s boot to poweroff ($VM_ACCEL${VM_NOTE:+: $VM_NOTE}; guest uptime $VM_UPTIME s)"
	if [ -n "$fails" ]; then
		V_RESULT=FAIL V_REASON="$fails; $t"
	elif [ "$VM_RC" != 0 ]; then
		V_RESULT=FAIL V_REASON="the guest script exited $VM_RC; $t; $(_vm_tails)"
	elif [ -n "$passes" ]; then
		V_RESULT=PASS V_REASON="$passes${skips:+; skipped: $skips}; $t"
	elif [ -n "$skips" ]; then
		V_RESULT=SKIP V_REASON=$skips
	else
		V_RESULT=FAIL V_REASON="the guest printed no PASS, FAIL or SKIP line; $t; $(_vm_tails)"
	fi
}

# vm_kernels_result: for a guest that ran tests/vm/kernels.guest.sh through vm_guest_kernels
# (its lines prefixed "K "): those lines out of VM_OUT, their verdict printed as a result
# line of its own, "vm-kernels-RELEASE" (before this scenario's), and the paths they proved
# recorded (tests/proofs.sh: proof PATH "vm RELEASE" vm-kernels).
vm_kernels_result() {
	local k=$LIVE_TMP/kernels.out rel p
	sed -n 's/^K //p' "$VM_OUT" >"$k"
	grep -v '^K ' "$VM_OUT" >"$VM_OUT.rest"
	mv "$VM_OUT.rest" "$VM_OUT"
	rel=$(awk '$1 == "KERNEL-RELEASE" { print $2; exit }' "$k")
	_vm_verdict "$k"
	[ -s "$k" ] || V_RESULT=FAIL V_REASON="the kernels checks printed nothing; $(_vm_tails)"
	vm_kernels_proofs "$k" "$rel"
	printf '%s %s-kernels-%s: %s\n' "$V_RESULT" "$LIVE_PREFIX" "${rel:-${VM_KERNEL_PKG#linux-image-}}" "$V_REASON" >&3
}

# vm_kernels_proofs FILE RELEASE: each "PROOF PATH" line of FILE into the suite's ledger
vm_kernels_proofs() {
	local p
	[ -n "$2" ] || return 0
	. "$VM_DIR/../proofs.sh"
	for p in $(awk '$1 == "PROOF" { print $2 }' "$1" | sort -u); do
		proof "$p" "vm $2" vm-kernels || live_fail "proof $p: not a path of tests/proofs.sh"
	done
}
