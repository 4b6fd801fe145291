#!/usr/bin/env python3
"""Run one program inside a throw-away QEMU VM whose kernel sees several NUMA nodes.

This machine (and most CI machines) has a single NUMA node, so placement on several nodes can only
be proven inside a VM. The VM has no disk: the kernel is Debian's stock kernel (extracted from the
linux-image package, never installed), the root file system is an initramfs that this script
writes itself (busybox for the shell and mount, plus the program under test), and the program's
exit status comes back over the serial console. A dynamically linked program travels with its
loader and the shared libraries `ldd` names, at the paths it names, and without its debug info
(the initramfs lives in the VM's memory); a statically linked one travels alone.

    tools/numa_vm.py setup                          # install qemu + busybox, fetch the kernel once
    tools/numa_vm.py run -n 2 -c 2 -m 512 PROGRAM [ARGS...]
    tools/numa_vm.py run -n 4 -c 1 -m 256 -t 240 --show-numa PROGRAM

Exit status: the program's own; 124 when the VM ran past the timeout; 125 when the VM itself
could not be prepared or started. Timings inside the VM mean nothing (emulated CPU): use it to
prove where memory lands, never how fast.

Guest settings: automatic NUMA balancing is off (pages stay where they were put); the kernel
itself lives on node 0, so node 0 has less free memory than the others.
"""

from __future__ import annotations

import argparse
import io
import lzma
import os
import re
import selectors
import shutil
import stat
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

EXIT_TIMEOUT = 124
EXIT_VM_FAILED = 125
EXIT_MARKER = "smartarrays-numa-vm-exit="
# The program header type of a dynamic program's loader (ELF `PT_INTERP`).
PT_INTERP = 3
# Busybox applets the init script uses.
APPLETS = ("sh", "mount", "sync", "poweroff", "cat", "sed")
DEBIAN_PACKAGES = {
    "qemu-system-x86_64": "qemu-system-x86",
    "/bin/busybox": "busybox-static",
    "dpkg-deb": "dpkg",
}


class VmError(Exception):
    """The VM could not be prepared or started (exit status 125)."""


def log(message: str) -> None:
    print(f"numa-vm: {message}", file=sys.stderr, flush=True)


def cache_dir() -> Path:
    root = os.environ.get("NUMA_VM_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "smartarrays-numa-vm"
    )
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    return path


def run_quiet(argv: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(argv, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs)


# ---- host packages -------------------------------------------------------------------------


def elf_is_static(path: Path) -> bool | None:
    """Whether the ELF file at `path` is statically linked (no program interpreter, `PT_INTERP`,
    among its program headers); None when it is not an ELF file at all. One read of the ELF
    header and of the program header table it points to. A header or table cut short counts
    as not static, so such a file goes the dynamic way and `ldd` says what is wrong with it."""
    with open(path, "rb") as f:
        header = f.read(64)
        if header[:4] != b"\x7fELF":
            return None
        wide = header[4] == 2  # ELFCLASS64; 1 is ELFCLASS32
        order = ">" if header[5] == 2 else "<"  # ELFDATA2MSB, else ELFDATA2LSB
        # e_phoff, then e_phentsize and e_phnum: offsets 32 and 54 (64-bit), 28 and 42 (32-bit)
        phoff_at, phoff_format, counts_at = (32, "Q", 54) if wide else (28, "I", 42)
        if len(header) < counts_at + 4:
            return False
        (phoff,) = struct.unpack_from(order + phoff_format, header, phoff_at)
        entry_size, entries = struct.unpack_from(order + "HH", header, counts_at)
        if entries == 0:
            return True  # no program headers at all (an object file): no interpreter either
        if entry_size < 4:
            return False
        f.seek(phoff)
        table = f.read(entry_size * entries)
    if len(table) < entry_size * entries:
        return False
    # p_type is the first 4 bytes of every entry, in either class.
    types = (struct.unpack_from(order + "I", table, i * entry_size)[0] for i in range(entries))
    return PT_INTERP not in types


def missing_packages() -> list[str]:
    missing = []
    for tool, package in DEBIAN_PACKAGES.items():
        found = Path(tool).exists() if tool.startswith("/") else shutil.which(tool)
        if not found:
            missing.append(package)
    busybox = Path("/bin/busybox")
    if busybox.exists() and not elf_is_static(busybox) and "busybox-static" not in missing:
        missing.append("busybox-static")
    return missing


def install_packages(packages: list[str]) -> None:
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    log(f"installing {' '.join(packages)} with apt-get")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    try:
        run_quiet(sudo + ["apt-get", "update", "-qq"], env=env)
        run_quiet(
            sudo + ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages], env=env
        )
    except (subprocess.CalledProcessError, FileNotFoundError) as e:
        detail = getattr(e, "stderr", b"") or b""
        raise VmError(f"could not install {' '.join(packages)}: {detail.decode(errors='replace')[-400:]}")


# ---- kernel --------------------------------------------------------------------------------


def cached_kernel() -> Path | None:
    override = os.environ.get("NUMA_VM_KERNEL")
    if override:
        return Path(override)
    kernels = sorted(cache_dir().glob("vmlinux-*"))
    return kernels[-1] if kernels else None


def kernel_package() -> str:
    """The versioned linux-image package that the linux-image-amd64 meta package points at."""
    for attempt in range(2):
        out = subprocess.run(
            ["apt-cache", "depends", "linux-image-amd64"], stdout=subprocess.PIPE, text=True
        )
        for line in out.stdout.splitlines():
            m = re.match(r"\s*Depends:\s*(linux-image-\d\S*)", line)
            if m:
                return m.group(1)
        if attempt == 0:
            sudo = [] if os.geteuid() == 0 else ["sudo"]
            subprocess.run(sudo + ["apt-get", "update", "-qq"], check=False)
    raise VmError("apt-cache cannot resolve linux-image-amd64 to a kernel package")


def uncompressed_kernel(bzimage: bytes) -> bytes | None:
    """The ELF vmlinux inside an xz-compressed bzImage, or None when it is not xz."""
    start = bzimage.find(b"\xfd7zXZ\x00")
    if start < 0:
        return None
    decompressor = lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
    try:
        elf = decompressor.decompress(bzimage[start:])
    except lzma.LZMAError:
        return None
    return elf if elf.startswith(b"\x7fELF") else None


def fetch_kernel() -> Path:
    """Download Debian's kernel package into the cache and keep its kernel image.

    The uncompressed ELF is kept when it can be extracted: QEMU boots it through the PVH entry
    point, which skips the in-guest decompression (several seconds under emulation)."""
    package = kernel_package()
    log(f"fetching kernel package {package}")
    with tempfile.TemporaryDirectory(dir=cache_dir()) as tmp:
        try:
            run_quiet(["apt-get", "download", "-q", "-o", "APT::Sandbox::User=root", package], cwd=tmp)
        except subprocess.CalledProcessError as e:
            raise VmError(f"apt-get download {package} failed: {e.stderr.decode(errors='replace')}")
        deb = next(Path(tmp).glob("*.deb"))
        tar = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE, check=True)
        with tarfile.open(fileobj=io.BytesIO(tar.stdout)) as archive:
            member = next(
                (m for m in archive.getmembers() if re.match(r"\./boot/vmlinuz-", m.name)), None
            )
            if member is None:
                raise VmError(f"{package} holds no boot/vmlinuz-*")
            bzimage = archive.extractfile(member).read()
        version = member.name.split("vmlinuz-", 1)[1]
        elf = uncompressed_kernel(bzimage)
        target = cache_dir() / (f"vmlinux-{version}" if elf else f"vmlinux-{version}.bzImage")
        target.write_bytes(elf if elf else bzimage)
        if not elf:
            log("could not decompress the kernel; booting the bzImage (slower)")
    return target


def setup() -> Path:
    missing = missing_packages()
    if missing:
        install_packages(missing)
    if not elf_is_static(Path("/bin/busybox")):
        raise VmError("/bin/busybox is not statically linked (install busybox-static)")
    kernel = cached_kernel() or fetch_kernel()
    if not kernel.is_file():
        raise VmError(f"kernel {kernel} is not a readable file")
    return kernel


# ---- initramfs: a "newc" cpio archive written here -----------------------------------------


class Cpio:
    """Writes an uncompressed newc cpio archive, the format the kernel unpacks as initramfs."""

    def __init__(self) -> None:
        self.out = io.BytesIO()
        self.inode = 1
        self.directories: set[str] = set()

    def _entry(self, name: str, mode: int, data: bytes = b"") -> None:
        fields = [self.inode, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name) + 1, 0]
        header = b"070701" + b"".join(b"%08X" % value for value in fields)
        self.out.write(header + name.encode() + b"\0")
        self._pad()
        self.out.write(data)
        self._pad()
        self.inode += 1

    def _pad(self) -> None:
        self.out.write(b"\0" * (-self.out.tell() % 4))

    def directory(self, name: str) -> None:
        self._entry(name, stat.S_IFDIR | 0o755)
        self.directories.add(name)

    def file_with_parents(self, name: str, data: bytes, executable: bool = False) -> None:
        """Adds `name` (relative) after whichever directories above it are not there yet."""
        parts = name.split("/")
        for depth in range(1, len(parts)):
            parent = "/".join(parts[:depth])
            if parent not in self.directories:
                self.directory(parent)
        self.file(name, data, executable)

    def file(self, name: str, data: bytes, executable: bool = False) -> None:
        self._entry(name, stat.S_IFREG | (0o755 if executable else 0o644), data)

    def symlink(self, name: str, target: str) -> None:
        self._entry(name, stat.S_IFLNK | 0o777, target.encode())

    def finish(self) -> bytes:
        self._entry("TRAILER!!!", 0)
        return self.out.getvalue()


def shell_quote(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


def shared_libraries(program: Path) -> list[Path]:
    """The loader and the shared libraries a dynamically linked program needs, as `ldd` finds
    them on this machine (absolute paths; the VM gets each at the same path)."""
    out = subprocess.run(["ldd", str(program)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if out.returncode != 0:
        raise VmError(f"ldd {program} failed: {out.stderr.strip() or out.stdout.strip()}")
    libraries = []
    for line in out.stdout.splitlines():
        line = line.strip()
        if "=> not found" in line:
            raise VmError(f"{program} needs {line.split()[0]}, which ldd cannot find")
        # "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" or "/lib64/ld-linux-x86-64.so.2 (0x...)";
        # the vDSO ("linux-vdso.so.1 (0x...)") has no file.
        path = line.split("=>", 1)[1].split()[0] if "=>" in line else line.split()[0]
        if path.startswith("/"):
            libraries.append(Path(path))
    return libraries


def without_debug_info(program: Path) -> bytes:
    """The program's bytes with its debug sections removed (objcopy), or as they are when
    objcopy is missing."""
    if not shutil.which("objcopy"):
        return program.read_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        stripped = Path(tmp) / program.name
        run_quiet(["objcopy", "--strip-debug", str(program), str(stripped)])
        return stripped.read_bytes()


def initramfs(program: Path, static: bool, args: list[str], env: list[str], show_numa: bool) -> bytes:
    name = program.name
    lines = [
        "#!/bin/sh",
        "mount -t proc proc /proc",
        "mount -t sysfs sysfs /sys",
        "mount -t devtmpfs devtmpfs /dev",
        "mount -t tmpfs tmpfs /tmp",
        "export PATH=/bin HOME=/tmp TMPDIR=/tmp",
        *[f"export {shell_quote(e)}" for e in env],
    ]
    if show_numa:
        lines.append("for n in /sys/devices/system/node/node*/meminfo; do cat $n | sed -n 1,2p; done")
    lines += [
        "cd /tmp",
        " ".join(["/program/" + shell_quote(name), *map(shell_quote, args)]) + " </dev/null",
        "status=$?",
        "sync",
        f'echo "{EXIT_MARKER}$status"',
        "poweroff -f",
    ]
    archive = Cpio()
    for directory in ("bin", "proc", "sys", "dev", "tmp", "program"):
        archive.directory(directory)
    archive.file("bin/busybox", Path("/bin/busybox").read_bytes(), executable=True)
    for applet in APPLETS:
        archive.symlink(f"bin/{applet}", "busybox")
    archive.file("init", ("\n".join(lines) + "\n").encode(), executable=True)
    if static:
        archive.file(f"program/{name}", program.read_bytes(), executable=True)
    else:
        # Real files at the paths ldd printed (symbolic links on the host resolved), so the
        # loader finds them where the program's INTERP and its default search path say.
        for library in shared_libraries(program):
            archive.file_with_parents(str(library).lstrip("/"), library.resolve().read_bytes(), True)
        archive.file(f"program/{name}", without_debug_info(program), executable=True)
    return archive.finish()


# ---- boot ----------------------------------------------------------------------------------


def kvm_usable() -> bool:
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return False
    # A /dev/kvm without vmx/svm in the CPU flags (nested, paravirtual) cannot boot a stock kernel.
    cpuinfo = Path("/proc/cpuinfo").read_text()
    return re.search(r"\b(vmx|svm)\b", cpuinfo) is not None


def qemu_command(kernel: Path, initrd: Path, shape: argparse.Namespace, accel: str) -> list[str]:
    nodes, cpus, mib = shape.nodes, shape.cpus_per_node, shape.mib_per_node
    command = [
        "qemu-system-x86_64",
        "-accel", accel,
        "-cpu", "host" if accel == "kvm" else "max",
        "-machine", "pc",
        "-smp", f"{nodes * cpus},sockets={nodes},cores={cpus},threads=1",
        "-m", f"{nodes * mib}M",
    ]
    for node in range(nodes):
        first = node * cpus
        command += [
            "-object", f"memory-backend-ram,id=ram{node},size={mib}M",
            "-numa", f"node,nodeid={node},cpus={first}-{first + cpus - 1},memdev=ram{node}",
        ]
    # no_timer_check: under software emulation on a busy host the kernel's boot-time test of
    # the IO-APIC timer can miss its ticks and panic ("IO-APIC + timer doesn't work!").
    kernel_args = "console=ttyS0 panic=-1 numa_balancing=disable no_timer_check quiet loglevel=3"
    command += [
        "-kernel", str(kernel), "-initrd", str(initrd), "-append", kernel_args,
        "-nodefaults", "-no-user-config", "-display", "none", "-serial", "stdio",
        "-monitor", "none", "-net", "none", "-no-reboot",
    ]  # fmt: skip
    return command


def boot(command: list[str], timeout: float) -> tuple[int | None, str, bool]:
    """Runs QEMU, echoing the guest console; returns (program status, stderr, timed out)."""
    status = None
    process = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + timeout
    timed_out = False
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    pending = b""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            timed_out = True
            process.kill()
            break
        if not selector.select(timeout=min(remaining, 1.0)):
            if process.poll() is not None:
                break
            continue
        chunk = os.read(process.stdout.fileno(), 65536)
        if not chunk:
            break
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for raw in lines:
            line = raw.decode(errors="replace").rstrip("\r")
            if line.startswith(EXIT_MARKER):
                status = int(line[len(EXIT_MARKER):])
            elif "reboot: Power down" not in line:
                print(line, flush=True)
    process.wait()
    stderr = process.stderr.read().decode(errors="replace")
    return status, stderr, timed_out


def run(shape: argparse.Namespace) -> int:
    program = Path(shape.program)
    if not program.is_file() or not os.access(program, os.X_OK):
        raise VmError(f"{program} is not an executable file")
    static = elf_is_static(program)
    if static is None:
        raise VmError(f"{program} is not an ELF program")
    kernel = setup()
    with tempfile.TemporaryDirectory(dir=cache_dir()) as tmp:
        initrd = Path(tmp) / "initramfs.cpio"
        initrd.write_bytes(initramfs(program, static, shape.args, shape.env, shape.show_numa))
        # Software emulation is tried twice: a VM that ends without the program's status (the
        # guest kernel failed to boot on a loaded host) is booted once more before giving up.
        accels = ["kvm", "tcg", "tcg"] if kvm_usable() else ["tcg", "tcg"]
        for accel in accels:
            log(
                f"{shape.nodes} nodes x {shape.cpus_per_node} CPUs x {shape.mib_per_node} MiB, "
                f"accel {accel}, kernel {kernel.name}"
            )
            started = time.monotonic()
            status, stderr, timed_out = boot(qemu_command(kernel, initrd, shape, accel), shape.timeout)
            log(f"VM ran {time.monotonic() - started:.1f} s")
            if status is not None:
                return status
            if timed_out:
                log(f"timed out after {shape.timeout} s")
                return EXIT_TIMEOUT
            log(f"VM ended without the program's exit status ({accel}): {stderr.strip()[-400:]}")
    return EXIT_VM_FAILED


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("setup", help="install qemu and busybox, fetch the kernel (once)")
    runner = commands.add_parser("run", help="run PROGRAM in a multi-node VM")
    runner.add_argument("-n", "--nodes", type=positive, default=2, help="NUMA nodes (default 2)")
    runner.add_argument("-c", "--cpus-per-node", type=positive, default=1, help="default 1")
    runner.add_argument("-m", "--mib-per-node", type=positive, default=512, help="default 512")
    runner.add_argument("-t", "--timeout", type=positive, default=300, help="seconds (default 300)")
    runner.add_argument("-e", "--env", action="append", default=[], help="VAR=VALUE for the program")
    runner.add_argument("--show-numa", action="store_true", help="print each node's memory first")
    runner.add_argument("program", help="an ELF program (static, or dynamic: its libraries go along)")
    runner.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    options = parser.parse_args(argv)
    try:
        if options.command == "setup":
            log(f"ready (kernel {setup()})")
            return 0
        return run(options)
    except VmError as e:
        log(f"error: {e}")
        return EXIT_VM_FAILED


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
