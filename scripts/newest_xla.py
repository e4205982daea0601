#!/usr/bin/env python3
"""Lists the newest jax, jaxlib, libtpu and CUDA plugins the package index offers, and says
whether tests/xla-ref/ stores real XLA's verdicts for them (and whether hlo-offload's version
table, `hlo-offload check --help` under --xla-version, knows their series).

    scripts/newest_xla.py [--python-version 3.13] [--hlo-offload build/hlo-offload]

Asks pip (`pip index versions PKG --python-version V --only-binary=:all:`, the indexes pip is
configured with) for each package's newest release that has a wheel for that Python; reads the
stored folders' versions.txt (scripts/xla_deviceless/gen_ref.py, gen_programs.py and
gen_sharded.py write them from the packages' metadata). Exits 1 when a newest compiler has no
stored verdicts, so that a scheduled run can say so.
"""
import argparse
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REF = os.path.join(REPO, "tests", "xla-ref")
PACKAGES = ("jax", "jaxlib", "libtpu", "jax-cuda12-plugin", "jax-cuda13-plugin")
# The packages whose XLA decides verdicts (the rest is the front end).
COMPILERS = ("libtpu", "jax-cuda12-plugin", "jax-cuda13-plugin")


def newest(package, python_version):
    """The newest version of `package` with a wheel for `python_version`, or None."""
    proc = subprocess.run([sys.executable, "-m", "pip", "index", "versions", package,
                           "--python-version", python_version, "--only-binary=:all:",
                           "--disable-pip-version-check"],
                          capture_output=True, text=True)
    m = re.match(r"^\S+ \(([^)]+)\)", proc.stdout.strip())
    return m.group(1) if m else None


def stored():
    """{(package, version): [folder, ...]} of every tests/xla-ref/ folder's versions.txt
    (a folder's jax_programs/versions.txt counts for the folder)."""
    found = {}
    for folder in sorted(os.listdir(REF)):
        for sub in ("", "jax_programs"):
            path = os.path.join(REF, folder, sub, "versions.txt")
            if not os.path.isfile(path):
                continue
            with open(path) as fh:
                lines = [line.split() for line in fh]
            backend = next((p[1] for p in lines if len(p) == 2 and p[0] == "backend"), None)
            for parts in lines:
                # A compiler counts for the folders compiled with it (a CUDA compile's
                # environment may hold libtpu too).
                if len(parts) == 2 and parts[0] in PACKAGES and (
                        parts[0] not in COMPILERS or
                        backend == ("tpu" if parts[0] == "libtpu" else "cuda")):
                        found.setdefault((parts[0], parts[1]), [])
                        if folder not in found[(parts[0], parts[1])]:
                            found[(parts[0], parts[1])].append(folder)
    return found


def known_series(binary):
    """The series hlo-offload's version table knows, from `check --help`."""
    try:
        proc = subprocess.run([binary, "check", "--help"], capture_output=True, text=True)
    except OSError:
        return None
    return re.findall(r"^\s+(libtpu|jax-cuda-plugin)-([\d.]+): measured on", proc.stdout,
                      re.M)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python-version", default="3.13",
                    help="the Python whose wheels count (default 3.13: the newest JAX)")
    ap.add_argument("--hlo-offload", default=os.path.join(REPO, "build", "hlo-offload"))
    args = ap.parse_args()
    have = stored()
    series = known_series(args.hlo_offload)
    missing = []
    print("%-20s %-12s %s" % ("package", "newest", "stored verdicts"))
    for package in PACKAGES:
        version = newest(package, args.python_version)
        folders = have.get((package, version), []) if version else []
        print("%-20s %-12s %s" % (package, version or "(none)",
                                  ", ".join(folders) if folders else "none"))
        if package in COMPILERS and version and not folders:
            missing.append("%s %s" % (package, version))
    if series is not None:
        print("version table (--xla-version): %s" % ", ".join("%s-%s" % s for s in series))
    if missing:
        print("no stored verdicts for: %s (scripts/xla_deviceless/gen_ref.py, gen_programs.py "
              "and gen_sharded.py with that package installed make them)" % ", ".join(missing))
        return 1
    print("every newest compiler has stored verdicts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
