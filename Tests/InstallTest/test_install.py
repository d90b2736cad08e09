"""Install test of the Debian package on a clean Debian 12 system: a fresh `debootstrap --variant=minbase
bookworm` root; the package published in a signed apt repository (packaging/apt-repo.sh, reprepro) and
installed there as a fleet does (the repository's key in /etc/apt/keyrings, `apt-get install
gbgbridge-shell`); the installed shell headless on the demo journey with scripted captures, LANGUAGE=de
giving a German message, the web-process extension and the shell completions; then a newer version
that `apt-get upgrade` brings, and neither a repository rolled back to the older version, nor the older
package published again, nor indexes signed by another key taking the machine back; the purge, after
which none of the package's files remain. Everything mounted is unmounted again.

Run by scripts/install-test.sh (which builds the .deb unless given one), from this folder, as root:
    INSTALL_TEST_DEB=FILE python3 -m unittest -v test_install
Environment: INSTALL_TEST_DEB (the package), INSTALL_TEST_KEEP_ROOT=1 (leave the unmounted root),
INSTALL_TEST_REPOSITORY_ONLY=1 (only install, upgrade and purge, for any package named gbgbridge-shell),
DEBIAN_MIRROR, DEBIAN_SECURITY_MIRROR. Logs, the shell's output and a screenshot go to out/install-test/.
"""

import atexit
import os
import re
import shutil
import signal
import subprocess
import sys
import unittest
from pathlib import Path

from debian_root import (LOGS, PACKAGE, REPOSITORY_ONLY_UPDATE, ROOT, SUITE, Archive, DebianRoot, Timings, run)

FIXTURES = ROOT / "Tests" / "ShellTests" / "Fixtures"
REPOSITORY_ONLY = os.environ.get("INSTALL_TEST_REPOSITORY_ONLY") == "1"
KEEP_ROOT = os.environ.get("INSTALL_TEST_KEEP_ROOT") == "1"
JOURNEY_USER = "journey"
USER_ENVIRONMENT = ["HOME=/home/journey", f"USER={JOURNEY_USER}", "PATH=/usr/bin:/bin", "LANG=C.UTF-8"]


def interrupt(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


def with_package_only(test):
    """Skips a test of the installed program when only the repository steps run."""
    return unittest.skipIf(REPOSITORY_ONLY, "--repository-only: the repository steps only")(test)


class InstalledPackageTests(unittest.TestCase):
    """One root for the whole class; the tests run in their numbered order and build on each other."""

    longMessage = False

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root (debootstrap, chroot and mount)")
        for tool in ["debootstrap", "chroot", "mount", "umount", "findmnt", "convert", "reprepro", "gpg"]:
            if not shutil.which(tool):
                raise RuntimeError(f"{tool} is not installed")
        deb = os.environ.get("INSTALL_TEST_DEB", "")
        if not deb or not Path(deb).is_file():
            raise RuntimeError(f"no package file {deb!r} (INSTALL_TEST_DEB)")
        cls.deb = Path(deb).resolve()
        cls.version = run(["dpkg-deb", "-f", cls.deb, "Version"], check=True).stdout.strip()
        LOGS.mkdir(parents=True, exist_ok=True)
        for old in LOGS.iterdir():
            if old.is_file() and old.name != "build-deb.txt":
                old.unlink()
        cls.timings = Timings()
        cls.root = cls.archive = None
        # An interrupted run (Ctrl+C, SIGTERM) skips tearDownClass: the root is unmounted at exit all the same.
        signal.signal(signal.SIGTERM, interrupt)
        atexit.register(cls.close)
        try:
            cls.root = DebianRoot(LOGS, cls.timings)
            cls.archive = Archive(LOGS)
            cls.install()
        except BaseException:
            cls.close()
            raise

    @classmethod
    def close(cls):
        """Removes the archive, unmounts and removes the root (once), and prints the phases' timings;
        whether everything was unmounted."""
        if cls.root is None and cls.archive is None:
            return True
        unmounted, note = True, None
        if cls.archive:
            cls.archive.close()
        if cls.root:
            unmounted, note = cls.root.close(KEEP_ROOT)
        cls.root = cls.archive = None
        if note:
            print(f"install-test: {note}", file=sys.stderr)
        print("\n" + "\n".join(f"  {line}" for line in cls.timings.lines), file=sys.stderr)
        return unmounted

    @classmethod
    def tearDownClass(cls):
        minbase_size = cls.root.minbase_size
        if not cls.close():
            raise AssertionError("expected everything mounted in the root to be unmounted again")
        print(f"  .deb size                          {cls.deb.stat().st_size} bytes", file=sys.stderr)
        installed_size = run(["dpkg-deb", "-f", cls.deb, "Installed-Size"]).stdout.strip()
        print(f"  Installed-Size                     {installed_size} KiB", file=sys.stderr)
        print(f"  minbase root                       {minbase_size} MB", file=sys.stderr)
        print(f"  root with the package installed    {cls.installed_size} MB", file=sys.stderr)

    @classmethod
    def serve(cls, public):
        """What the root's web server would serve, copied in as a file: repository."""
        served = cls.root.path / "srv" / "gbgbridge-apt"
        shutil.rmtree(served, ignore_errors=True)
        subprocess.run(["cp", "-a", str(public), str(served)], check=True)

    @classmethod
    def install(cls):
        """The package published in the organisation's signed repository and installed from it."""
        archive, root = cls.archive, cls.root
        cls.repository = archive.path / "repository"
        if not archive.apt_repo("init", cls.repository, archive.key("GBG Bridge test archive")):
            raise RuntimeError(f"packaging/apt-repo.sh init failed: {archive.apt_repo_tail()}")
        if not archive.apt_repo("publish", cls.repository, cls.deb):
            raise RuntimeError(f"packaging/apt-repo.sh publish failed: {archive.apt_repo_tail()}")
        cls.serve(cls.repository / "public")
        subprocess.run(["cp", "-a", str(cls.repository / "public"), str(archive.path / "first-publication")], check=True)
        subprocess.run(["install", "-D", "-m", "0644", str(cls.repository / "public" / "gbgbridge-archive-keyring.gpg"),
                        str(root.path / "etc/apt/keyrings/gbgbridge.gpg")], check=True)
        (root.path / "etc/apt/sources.list.d/gbgbridge.list").write_text(
            "deb [signed-by=/etc/apt/keyrings/gbgbridge.gpg] file:/srv/gbgbridge-apt bookworm main\n")
        print(f"\ninstall-test: apt-get install -y {PACKAGE} from the signed repository", file=sys.stderr)
        if not root.apt("apt-get update", "apt-get", "update"):
            raise RuntimeError(f"apt-get update failed:\n{root.apt_tail(20)}")
        if not root.apt("apt-get install", "apt-get", "install", "-y", "-o", "DPkg::Options::=--force-unsafe-io", PACKAGE):
            raise RuntimeError(f"apt-get install failed:\n{root.apt_tail(30)}")
        cls.installed_size = root.size_mb(exclude="./var/cache/apt/archives")
        cls.timings.done("apt-get install from the repository")

    def test_1_installed_from_the_repository(self):
        """1. apt-get install put the package's version in place, from the signed repository"""
        self.assertEqual(self.root.installed_version(), self.version,
                         f"expected apt to install {PACKAGE} {self.version}, it installed {self.root.installed_version()!r}")
        policy = self.root.in_root("apt-cache", "policy", PACKAGE).stdout
        self.assertIn(f"file:/srv/gbgbridge-apt {SUITE}/main", policy,
                      f"expected apt-cache policy to show {PACKAGE} coming from the repository:\n{policy}")

    def journey_user(self):
        """The root's unprivileged user who runs the shell."""
        if self.root.in_root("id", JOURNEY_USER).returncode != 0:
            self.root.in_root("useradd", "--create-home", "--shell", "/bin/sh", JOURNEY_USER, check=True)

    @with_package_only
    def test_2_headless_demo_journey(self):
        """2. the installed shell runs the demo journey headless: completed, MRZ read, the finished page shown"""
        journey = self.root.path / "tmp" / "journey"
        for image in ["document-mrz-td3.png", "selfie.jpg"]:
            self.assertTrue((FIXTURES / image).is_file(), f"expected the test image {FIXTURES / image}, missing")
        journey.mkdir(mode=0o755)
        # A data page whose machine-readable zone the installed OCR model must read.
        shutil.copyfile(FIXTURES / "document-mrz-td3.png", journey / "document.png")
        shutil.copyfile(FIXTURES / "selfie.jpg", journey / "selfie.jpg")
        self.journey_user()
        uid = int(self.root.in_root("id", "-u", JOURNEY_USER).stdout)
        gid = int(self.root.in_root("id", "-g", JOURNEY_USER).stdout)
        os.chown(journey, uid, gid)
        command = [PACKAGE, "--headless", "--document-image", "/tmp/journey/document.png",
                   "--selfie-image", "/tmp/journey/selfie.jpg", "--exit-on", "journey.complete", "--timeout", "60",
                   "--message-log", "/tmp/journey/messages.jsonl", "--screenshot", "/tmp/journey/screenshot.png"]
        print(f"\ninstall-test: running: {' '.join(command)}", file=sys.stderr)
        try:
            done = self.root.as_user(JOURNEY_USER, [*USER_ENVIRONMENT, "DBUS_SESSION_BUS_ADDRESS=disabled:",
                                                    "NO_AT_BRIDGE=1"], *command, timeout=180)
            status, stdout, stderr = done.returncode, done.stdout, done.stderr
        except subprocess.TimeoutExpired as expired:
            status, stdout, stderr = "timed out after 180 s", expired.stdout or "", expired.stderr or ""
            stdout, stderr = (text.decode(errors="replace") if isinstance(text, bytes) else text
                              for text in (stdout, stderr))
        (LOGS / "shell-stdout.txt").write_text(stdout)
        (LOGS / "shell-stderr.txt").write_text(stderr)
        for name in ["messages.jsonl", "screenshot.png"]:
            if (journey / name).exists():
                shutil.copyfile(journey / name, LOGS / name)
        self.timings.done("headless demo journey")
        tail = "\n".join(stderr.splitlines()[-30:])
        self.assertEqual(status, 0, f"expected the installed shell to exit with status 0, it ended with {status} "
                                    f"(see {LOGS / 'shell-stderr.txt'}):\n{tail}")
        self.assertTrue(stdout.startswith("{"), f"expected journey.complete data on stdout, saw: {stdout[:300]!r}")
        self.assertIn('"outcome":"completed"', stdout,
                      f"expected the demo journey to report outcome completed: {stdout[:300]}")
        print(f"install-test: journey finished: {stdout[:300]}", file=sys.stderr)
        self.assertIn('"mrz":"read"', stdout,
                      f"expected the installed shell to read the data page's machine-readable zone: {stdout[:600]}")
        # The screenshot shows the finished page: window-sized, and a blank spot of the finish card
        # full white (a first run's stalled renderer once left the cards greyed mid-fade).
        screenshot = LOGS / "screenshot.png"
        size = run(["convert", screenshot, "-format", "%wx%h", "info:"])
        self.assertEqual(size.returncode, 0, f"expected a readable screenshot {screenshot}: {size.stderr.strip()}")
        self.assertEqual(size.stdout, "1280x900", f"expected a 1280x900 screenshot, it is {size.stdout}")
        pixel = run(["convert", screenshot, "-crop", "1x1+700+720", "-depth", "8", "txt:-"]).stdout.strip()
        pixel = pixel.splitlines()[-1] if pixel else "(nothing)"
        self.assertIn("(255,255,255)", pixel,
                      f"expected the screenshot to show the finished demo (white at pixel 700,720), saw: {pixel}")

    @with_package_only
    def test_3_german_messages(self):
        """3. the installed message catalogues: LANGUAGE=de gives German messages"""
        self.journey_user()
        done = self.root.as_user(JOURNEY_USER, ["HOME=/home/journey", "PATH=/usr/bin:/bin", "LANG=C.UTF-8",
                                                "LANGUAGE=de"], PACKAGE, "--timeout", "-5")
        german = done.stderr.strip()
        (LOGS / "shell-german.txt").write_text(german + "\n")
        self.assertEqual(done.returncode, 2,
                         f"expected LANGUAGE=de {PACKAGE} --timeout -5 to exit with status 2, saw {done.returncode}: {german}")
        self.assertIn("Fehler: --timeout muss eine Anzahl Sekunden", german,
                      f"expected LANGUAGE=de {PACKAGE} to print a German message, saw: {german}")
        print(f"\ninstall-test: German message: {german}", file=sys.stderr)
        self.timings.done("German message catalogue")

    @with_package_only
    def test_4_web_extension(self):
        """4. the web-process extension is where the program looks for it, and loadable there"""
        extension = f"/usr/lib/{PACKAGE}/web-extension/libgbgbridge-web-extension.so"
        self.assertTrue((self.root.path / extension.lstrip("/")).is_file(),
                        f"expected the web-process extension {extension} in the package, missing")
        done = self.root.in_root("ldd", extension)
        libraries = done.stdout + done.stderr
        self.assertEqual(done.returncode, 0, f"expected ldd {extension} to succeed: {libraries}")
        self.assertNotIn("not found", libraries,
                         f"expected the package to bring every library the web-process extension needs: {libraries}")
        self.assertNotIn("libswift", libraries, f"expected the web-process extension not to link the Swift runtime: {libraries}")
        self.timings.done("web-process extension")

    @with_package_only
    def test_5_shell_completions(self):
        """5. shell completions for bash, zsh and fish, written by the option parser"""
        for completion in [f"/usr/share/bash-completion/completions/{PACKAGE}",
                           f"/usr/share/zsh/vendor-completions/_{PACKAGE}",
                           f"/usr/share/fish/vendor_completions.d/{PACKAGE}.fish"]:
            path = self.root.path / completion.lstrip("/")
            self.assertTrue(path.is_file() and path.stat().st_size > 0,
                            f"expected the shell completion {completion} in the package, missing or empty")
            self.assertIn("message-log", path.read_text(errors="replace"),
                          f"expected {completion} to offer --message-log")
        self.timings.done("shell completions")

    def test_6_upgrade_from_the_repository(self):
        """6. apt-get upgrade brings a newer version published in the repository"""
        self.__class__.newer_version = newer = f"{self.version}+upgrade.test"
        newer_deb = self.archive.path / f"{PACKAGE}_{newer}_{self.root.arch}.deb"
        self.archive.repack(self.deb, newer, newer_deb)
        self.assertTrue(self.archive.apt_repo("publish", self.repository, newer_deb),
                        f"expected to publish {newer}: {self.archive.apt_repo_tail()}")
        self.serve(self.repository / "public")
        print(f"\ninstall-test: apt-get update && apt-get upgrade -y: {self.version} to {newer}", file=sys.stderr)
        self.assertTrue(self.root.apt("apt-get update (newer version)", "apt-get", "update", *REPOSITORY_ONLY_UPDATE),
                        f"expected apt-get update to succeed:\n{self.root.apt_tail(20)}")
        self.assertTrue(self.root.apt("apt-get upgrade", "apt-get", "upgrade", "-y", "-o", "DPkg::Options::=--force-unsafe-io"),
                        f"expected apt-get upgrade to succeed:\n{self.root.apt_tail(30)}")
        self.assertEqual(self.root.installed_version(), newer,
                         f"expected apt-get upgrade to bring {newer}, {PACKAGE} is at {self.root.installed_version()!r}")
        self.timings.done("apt-get upgrade from the repository")

    def test_7_nothing_takes_the_machine_back(self):
        """7. neither the older package published again, nor a rolled-back repository, nor another key's indexes downgrade"""
        newer = getattr(self, "newer_version", None)
        if newer is None or self.root.installed_version() != newer:
            self.fail("expected the newer version installed by step 6, which did not run or did not pass")
        # The older package published again: the repository refuses it.
        self.assertFalse(self.archive.apt_repo("publish", self.repository, self.deb),
                         f"expected packaging/apt-repo.sh to refuse {self.version} over {newer}, it published it")
        # The repository as it was before the upgrade (old, validly signed indexes, as a stale mirror or an
        # attacker replays them): apt keeps the newer installed version.
        self.serve(self.archive.path / "first-publication")
        self.root.apt("apt-get update (rolled back repository)", "apt-get", "update", *REPOSITORY_ONLY_UPDATE)
        self.root.apt("apt-get upgrade (rolled back repository)", "apt-get", "upgrade", "-y")
        self.assertEqual(self.root.installed_version(), newer,
                         f"expected {newer} to stay after a rolled-back repository, it is {self.root.installed_version()!r}")
        # Indexes signed by a key the machine does not trust: apt refuses them, and what they offer.
        intruder_version = f"{self.version}+zz.intruder"
        intruder_deb, intruder = self.archive.path / "intruder.deb", self.archive.path / "intruder"
        self.archive.repack(self.deb, intruder_version, intruder_deb)
        self.assertTrue(self.archive.apt_repo("init", intruder, self.archive.key("Intruder"))
                        and self.archive.apt_repo("publish", intruder, intruder_deb),
                        f"expected to make the intruder's repository: {self.archive.apt_repo_tail()}")
        self.serve(intruder / "public")
        done = self.root.in_root("apt-get", "update", *REPOSITORY_ONLY_UPDATE)
        update = done.stdout + done.stderr
        with open(LOGS / "apt.txt", "a") as log:
            log.write(f"### apt-get update (another key)\n{update}\n")
        self.assertRegex(update, "NO_PUBKEY|is not signed|signatures couldn't be verified",
                         f"expected apt-get update to refuse indexes signed by a key the machine does not trust:\n{update}")
        self.root.apt("apt-get upgrade (another key)", "apt-get", "upgrade", "-y")
        self.assertEqual(self.root.installed_version(), newer,
                         f"expected {newer} to stay after indexes signed by another key, it is {self.root.installed_version()!r}")
        policy = self.root.in_root("apt-cache", "policy", PACKAGE).stdout
        self.assertNotIn(intruder_version, policy,
                         f"expected apt not to offer {intruder_version} from indexes signed by another key:\n{policy}")
        self.serve(self.repository / "public")
        self.assertTrue(self.root.apt("apt-get update (back to the repository)", "apt-get", "update", *REPOSITORY_ONLY_UPDATE),
                        f"expected apt-get update to succeed:\n{self.root.apt_tail(20)}")
        self.timings.done("downgrade and foreign-key refusals")

    def test_8_purge_leaves_nothing(self):
        """8. dpkg --purge, and nothing of the package is left"""
        files = self.root.in_root("dpkg-query", "-L", PACKAGE).stdout
        (LOGS / "package-files.txt").write_text(files)
        done = self.root.in_root("dpkg", "--purge", PACKAGE)
        with open(LOGS / "apt.txt", "a") as log:
            log.write(done.stdout + done.stderr)
        self.assertEqual(done.returncode, 0, f"expected dpkg --purge to succeed:\n{done.stdout}{done.stderr}")
        own = re.compile(rf"^/usr/share/(doc/)?{re.escape(PACKAGE)}(/|$)")
        left = []
        for path in filter(None, files.splitlines()):
            inside = self.root.path / path.lstrip("/")
            if own.match(path):
                if inside.exists():
                    left.append(path)
            elif inside.exists() and not inside.is_dir():
                left.append(path)
        self.assertEqual(left, [], f"expected nothing left behind after dpkg --purge, saw: {' '.join(left)}")
        known = self.root.in_root("dpkg-query", "-W", PACKAGE)
        self.assertNotEqual(known.returncode, 0, f"expected dpkg not to know {PACKAGE} after the purge: {known.stdout}")
        self.timings.done("dpkg --purge and leftover check")


if __name__ == "__main__":
    unittest.main()
