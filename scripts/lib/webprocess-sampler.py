#!/usr/bin/python3
"""Samples the WebKit web process below a benchmark until the benchmark ends.

Usage: webprocess-sampler.py PID
Every 20 ms, finds the descendant of PID named WebKitWebProces(s) and reads its resident set and
page-fault counts from /proc; when PID has exited, prints the last sample as benchmark lines:
    webprocess_rss_end_mib 367.1
    webprocess_minor_faults 123456
    webprocess_peak_rss_mib 402.3
Prints nothing when no web process was seen.
"""
import os
import sys
import time


def children_of():
    parents = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            parents[int(entry)] = int(fields[1])
        except (OSError, IndexError, ValueError):
            pass
    return parents


def descends_from(pid, ancestor, parents):
    for _ in range(16):
        if pid == ancestor:
            return True
        pid = parents.get(pid)
        if pid is None or pid <= 1:
            return False
    return False


def sample(ancestor):
    parents = children_of()
    for pid in parents:
        try:
            with open(f"/proc/{pid}/comm") as comm:
                if not comm.read().startswith("WebKitWebProces"):
                    continue
            if not descends_from(pid, ancestor, parents):
                continue
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            status = {}
            with open(f"/proc/{pid}/status") as lines:
                for line in lines:
                    key, _, value = line.partition(":")
                    status[key] = value.strip()
            rss_kib = int(status["VmRSS"].split()[0])
            peak_kib = int(status.get("VmHWM", "0 kB").split()[0])
            return rss_kib, peak_kib, int(fields[7])
        except (OSError, KeyError, IndexError, ValueError):
            continue
    return None


def main():
    ancestor = int(sys.argv[1])
    last = None
    while os.path.exists(f"/proc/{ancestor}"):
        found = sample(ancestor)
        if found:
            last = found
        time.sleep(0.02)
    if last:
        rss, peak, faults = last
        print(f"webprocess_rss_end_mib {rss / 1024:.1f}")
        print(f"webprocess_peak_rss_mib {peak / 1024:.1f}")
        print(f"webprocess_minor_faults {faults}")


if __name__ == "__main__":
    main()
