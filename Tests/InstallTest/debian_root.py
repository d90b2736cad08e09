"""A clean Debian 12 root and the organisation's signed apt repository, for the install test (test_install.py).

The root is a `debootstrap --variant=minbase bookworm` tree (cached as a tarball under .cache/debootstrap/),
with /proc, /sys, a private /dev and the cached apt archives mounted; DebianRoot.close kills what still runs
in it, unmounts everything and removes it. The repository is made with packaging/apt-repo.sh (reprepro)
and signed by a GnuPG key of its own, outside the root.
"""

import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "gbgbridge-shell"
SUITE = "bookworm"
CACHE = ROOT / ".cache" / "debootstrap"
LOGS = ROOT / "out" / "install-test"
APT_REPO = ROOT / "packaging" / "apt-repo.sh"
# Later updates read the organisation's source only (Debian's indexes are fresh from the install).
REPOSITORY_ONLY_UPDATE = ["-o", "Dir::Etc::SourceList=/etc/apt/sources.list.d/gbgbridge.list",
                          "-o", "Dir::Etc::SourceParts=-", "-o", "APT::Get::List-Cleanup=0"]


def run(argv, **options):
    """subprocess.run with text output captured."""
    return subprocess.run([str(argument) for argument in argv], capture_output=True, text=True, **options)


def debian_mirror():
    """DEBIAN_MIRROR, else the first Debian mirror in /etc/apt/sources.list*, else deb.debian.org."""
    mirror = os.environ.get("DEBIAN_MIRROR", "")
    if not mirror:
        sources = [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*.list")),
                   *sorted(Path("/etc/apt/sources.list.d").glob("*.sources"))]
        for source in sources:
            try:
                lines = source.read_text(errors="replace").splitlines()
            except OSError:
                continue
            for line in lines:
                if line.lstrip().startswith("#"):
                    continue
                found = re.search(r"https?://\S+/debian/?(?=\s|$)", line)
                if found:
                    mirror = found.group(0)
                    break
            if mirror:
                break
    return mirror.rstrip("/") or "http://deb.debian.org/debian"


class Timings:
    """How long each phase took, printed at the end."""

    def __init__(self):
        self.started = self.phase_started = time.monotonic()
        self.lines = []

    def done(self, phase):
        now = time.monotonic()
        self.lines.append(f"{phase:<34} {int(now - self.phase_started):4d} s")
        self.phase_started = now


class DebianRoot:
    """A minbase bookworm root with its mounts; in_root runs commands inside it."""

    def __init__(self, logs, timings):
        self.logs = logs
        self.arch = run(["dpkg", "--print-architecture"], check=True).stdout.strip()
        self.mirror = debian_mirror()
        self.security_mirror = os.environ.get("DEBIAN_SECURITY_MIRROR", f"{self.mirror}-security")
        (CACHE / "apt-archives" / "partial").mkdir(parents=True, exist_ok=True)
        self.path = Path(tempfile.mkdtemp(prefix="gbgbridge-install-test.", dir=os.environ.get("TMPDIR", "/var/tmp")))
        self.path.chmod(0o755)
        tarball = CACHE / f"{SUITE}-minbase-{self.arch}.tar"
        if tarball.exists():
            subprocess.run(["tar", "-C", str(self.path), "--numeric-owner", "-xpf", str(tarball)], check=True)
            self.path.chmod(0o755)
            timings.done("minbase root from the cache")
        else:
            with open(logs / "debootstrap.txt", "w") as log:
                done = subprocess.run(["debootstrap", "--variant=minbase", f"--arch={self.arch}", SUITE, str(self.path),
                                       self.mirror], stdout=log, stderr=subprocess.STDOUT)
            if done.returncode != 0:
                tail = "\n".join((logs / "debootstrap.txt").read_text(errors="replace").splitlines()[-20:])
                raise RuntimeError(f"debootstrap failed:\n{tail}")
            partial = tarball.with_name(tarball.name + ".partial")
            subprocess.run(["tar", "-C", str(self.path), "--numeric-owner", "-cpf", str(partial), "."], check=True)
            partial.replace(tarball)
            timings.done("debootstrap minbase root")
        self.minbase_size = self.size_mb()
        self.prepare()

    def prepare(self):
        """Debian 12's sources, this host's apt date checks, no services started, the mounts."""
        root = self.path
        (root / "etc/apt/sources.list").write_text(
            f"deb {self.mirror} {SUITE} main\ndeb {self.mirror} {SUITE}-updates main\n"
            f"deb {self.security_mirror} {SUITE}-security main\n")
        dump = run(["apt-config", "dump"]).stdout.splitlines()
        checks = [line for line in dump if re.match(r"^Acquire::Check-(Valid-Until|Date) ", line)]
        (root / "etc/apt/apt.conf.d/99install-test").write_text("".join(line + "\n" for line in checks))
        shutil.copyfile("/etc/resolv.conf", root / "etc/resolv.conf")
        policy = root / "usr/sbin/policy-rc.d"
        policy.write_text("#!/bin/sh\nexit 101\n")
        policy.chmod(0o755)
        mount = lambda *argv: subprocess.run(["mount", *map(str, argv)], check=True)
        mount("-t", "proc", "proc", root / "proc")
        mount("-t", "sysfs", "-o", "ro", "sysfs", root / "sys")
        mount("-t", "tmpfs", "-o", "mode=0755,nosuid", "devtmpfs", root / "dev")
        for name, major, minor in [("null", 1, 3), ("zero", 1, 5), ("full", 1, 7), ("random", 1, 8),
                                   ("urandom", 1, 9), ("tty", 5, 0)]:
            subprocess.run(["mknod", "-m", "0666", str(root / "dev" / name), "c", str(major), str(minor)], check=True)
        for link, target in [("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                             ("stderr", "/proc/self/fd/2")]:
            (root / "dev" / link).symlink_to(target)
        (root / "dev/pts").mkdir(mode=0o755)
        (root / "dev/shm").mkdir()
        (root / "dev/shm").chmod(0o1777)
        mount("-t", "devpts", "-o", "newinstance,ptmxmode=0666,mode=0620,gid=5", "devpts", root / "dev/pts")
        (root / "dev/ptmx").symlink_to("pts/ptmx")
        mount("-t", "tmpfs", "-o", "mode=1777,nosuid,nodev", "shm", root / "dev/shm")
        mount("--bind", CACHE / "apt-archives", root / "var/cache/apt/archives")
        apt_user = int(run(["chroot", root, "id", "-u", "_apt"], check=True).stdout)
        os.chown(root / "var/cache/apt/archives/partial", apt_user, -1)

    def size_mb(self, exclude=None):
        argv = ["du", "-s", "-x", "-m"] + ([f"--exclude={exclude}"] if exclude else []) + [str(self.path)]
        return int(run(argv, check=True).stdout.split()[0])

    def in_root(self, *argv, **options):
        """Runs argv in the root as root, with a clean environment; the CompletedProcess."""
        return run(["chroot", self.path, "/usr/bin/env", "-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8",
                    "DEBIAN_FRONTEND=noninteractive", *argv], **options)

    def as_user(self, user, environment, *argv, **options):
        """Runs argv in the root as user, with only environment."""
        return run(["chroot", f"--userspec={user}:{user}", self.path, "/usr/bin/env", "-i", *environment, *argv],
                   **options)

    def apt(self, step, *argv):
        """Runs an apt command in the root, its output appended to apt.txt; whether it succeeded."""
        done = self.in_root(*argv)
        with open(self.logs / "apt.txt", "a") as log:
            log.write(f"### {step}\n{done.stdout}{done.stderr}")
        return done.returncode == 0

    def apt_tail(self, lines=30):
        return "\n".join((self.logs / "apt.txt").read_text(errors="replace").splitlines()[-lines:])

    def installed_version(self):
        """The installed version of the package, "" when none."""
        done = self.in_root("dpkg-query", "-W", "-f=${Version}", PACKAGE)
        return done.stdout if done.returncode == 0 else ""

    def close(self, keep):
        """Kills what runs in the root, unmounts it, and removes it unless keep; (unmounted, what happened)."""
        for process in Path("/proc").glob("[0-9]*"):
            try:
                if os.readlink(process / "root") == str(self.path):
                    os.kill(int(process.name), 9)
            except OSError:
                pass

        def mounted():
            targets = run(["findmnt", "-r", "-n", "-o", "TARGET"]).stdout.splitlines()
            return sorted((target for target in targets if target.startswith(f"{self.path}/")), reverse=True)

        for target in mounted():
            if subprocess.run(["umount", target], stderr=subprocess.DEVNULL).returncode != 0:
                subprocess.run(["umount", "-l", target])
        if mounted():
            return False, f"could not unmount everything under {self.path}; leaving it"
        if keep:
            return True, f"root kept at {self.path}"
        subprocess.run(["rm", "-rf", "--one-file-system", str(self.path)])
        return True, None


class Archive:
    """The organisation's side: GnuPG keys and reprepro repositories, outside the root."""

    def __init__(self, logs):
        self.logs = logs
        self.path = Path(tempfile.mkdtemp(prefix="gbgbridge-archive.", dir=os.environ.get("TMPDIR", "/var/tmp")))
        self.gnupg = self.path / "gnupg"
        self.gnupg.mkdir(mode=0o700)
        self.env = {**os.environ, "GNUPGHOME": str(self.gnupg)}

    def key(self, name):
        """A new signing key NAME; its fingerprint."""
        subprocess.run(["gpg", "--batch", "--passphrase", "", "--quick-gen-key", f"{name} <archive@gbgbridge.invalid>",
                        "ed25519", "sign", "1d"], env=self.env, capture_output=True)
        listing = run(["gpg", "--batch", "--with-colons", "--list-secret-keys", "--", name], env=self.env).stdout
        for line in listing.splitlines():
            fields = line.split(":")
            if fields[0] == "fpr":
                return fields[9]
        raise RuntimeError(f"gpg made no key {name}")

    def apt_repo(self, *argv):
        """packaging/apt-repo.sh ARGV, its stderr appended to apt-repo.txt; whether it succeeded."""
        done = run(["bash", APT_REPO, *argv], env=self.env, cwd=ROOT)
        with open(self.logs / "apt-repo.txt", "a") as log:
            log.write(done.stderr)
        return done.returncode == 0

    def apt_repo_tail(self, lines=5):
        return "\n".join((self.logs / "apt-repo.txt").read_text(errors="replace").splitlines()[-lines:])

    def repack(self, deb, version, output):
        """The same package under another version."""
        tree = self.path / "repack"
        shutil.rmtree(tree, ignore_errors=True)
        subprocess.run(["dpkg-deb", "-R", str(deb), str(tree)], check=True)
        control = tree / "DEBIAN" / "control"
        control.write_text(re.sub(r"(?m)^Version: .*$", f"Version: {version}", control.read_text()))
        subprocess.run(["dpkg-deb", "--root-owner-group", "-Zxz", "-b", str(tree), str(output)], check=True,
                       stdout=subprocess.DEVNULL)

    def close(self):
        subprocess.run(["gpgconf", "--homedir", str(self.gnupg), "--kill", "all"], capture_output=True)
        shutil.rmtree(self.path, ignore_errors=True)
