"""Issue 42: `waypost export` for the tools that drive real apps, read as each ecosystem reads it.

    check_exports.py WAYPOST ROUTE [--speed M/S]

The route's positions and times come from `waypost export ROUTE --format gpx` read by gpxpy.
- xcode-gpx: gpxpy reads it (Xcode's template has no namespace); one waypoint per position, in
  order, times ascending and equal to the route's.
- simctl: one shell command (shlex), `xcrun simctl location booted start --speed=S lat,lon …`,
  latitude first, the positions in order; S is the route's length over its duration.
- maestro: YAML (PyYAML): an `appId` header, then `travel` steps whose points are "lat, lon"
  strings that Maestro's parser takes (split on ",", exactly two numbers), in order; speeds > 0.
- adb: `sh -n` accepts the script; every command is `adb emu geo fix <longitude> <latitude>
  [<altitude>]` (the emulator console's grammar), in order; the sleeps add up to the duration.
- --sample-interval 5: waypoints every 5 s.
Every export prints exactly one line on standard error saying what it does not keep.
"""

import math
import re
import shlex
import subprocess
import sys
import tempfile

import gpxpy
import yaml

TOLERANCE = 1e-6  # degrees: the exports write seven decimals


def run(args):
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"check_exports: {' '.join(args)} exited {done.returncode}: {done.stderr}")
    return done.stdout, done.stderr


def fail(message):
    sys.exit(f"check_exports: {message}")


def haversine(a, b):
    r = 6371008.8
    (la1, lo1), (la2, lo2) = [(math.radians(p[0]), math.radians(p[1])) for p in (a, b)]
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    return 2 * r * math.asin(math.sqrt(h))


def same_positions(name, got, want):
    if len(got) != len(want):
        fail(f"{name}: {len(got)} positions, the route has {len(want)}")
    for index, (g, w) in enumerate(zip(got, want)):
        if abs(g[0] - w[0]) > TOLERANCE or abs(g[1] - w[1]) > TOLERANCE:
            fail(f"{name}: position {index} is {g}, the route's is {w}")


def main():
    waypost, route = sys.argv[1], sys.argv[2]
    extra = sys.argv[3:]
    reference, _ = run([waypost, "export", route, "--format", "gpx"])
    points = [p for t in gpxpy.parse(reference).tracks for s in t.segments for p in s.points]
    if not points:
        points = [p for r in gpxpy.parse(reference).routes for p in r.points]
    positions = [(p.latitude, p.longitude) for p in points]
    timed = all(p.time is not None for p in points)

    def export(fmt, *more):
        out, err = run([waypost, "export", route, "--format", fmt, *extra, *more])
        lines = [line for line in err.splitlines() if line]
        if len(lines) != 1 or not lines[0].startswith(f"waypost: {fmt} keeps"):
            fail(f"{fmt}: expected one line saying what it keeps, got {lines}")
        return out

    # Xcode GPX, read by gpxpy.
    gpx = gpxpy.parse(export("xcode-gpx"))
    waypoints = gpx.waypoints
    same_positions("xcode-gpx", [(w.latitude, w.longitude) for w in waypoints], positions)
    times = [w.time for w in waypoints]
    if any(t is None for t in times) or any(b < a for a, b in zip(times, times[1:])):
        fail("xcode-gpx: every waypoint needs a time, in ascending order")
    if timed and [t.timestamp() for t in times] != [p.time.timestamp() for p in points]:
        fail("xcode-gpx: the waypoints' times are not the route's")
    duration = times[-1].timestamp() - times[0].timestamp()

    # simctl: one command, latitude first.
    command = export("simctl").strip().splitlines()
    if len(command) != 1:
        fail(f"simctl: expected one command, got {len(command)} lines")
    words = shlex.split(command[0])
    if words[:5] != ["xcrun", "simctl", "location", "booted", "start"] or not words[5].startswith("--speed="):
        fail(f"simctl: not `xcrun simctl location booted start --speed=…`: {words[:6]}")
    speed = float(words[5].split("=", 1)[1])
    same_positions("simctl", [tuple(float(x) for x in w.split(",")) for w in words[6:]], positions)
    length = sum(haversine(a, b) for a, b in zip(positions, positions[1:]))
    if duration > 0 and abs(speed - length / duration) > 0.01 * (length / duration) + 0.006:
        fail(f"simctl: speed {speed} m/s, the route's mean is {length / duration:.3f}")
    device = shlex.split(export("simctl", "--device", "A1B2-C3 D4").strip())
    if device[3] != "A1B2-C3 D4":
        fail(f"simctl --device: the UDID is not one shell word: {device[:5]}")

    # Maestro: YAML, Maestro's point syntax.
    documents = list(yaml.safe_load_all(export("maestro")))
    if len(documents) != 2 or "appId" not in documents[0]:
        fail(f"maestro: expected an appId header and a flow, got {len(documents)} documents")
    travelled = []
    for step in documents[1]:
        travel = step.get("travel") if isinstance(step, dict) else None
        if not isinstance(travel, dict) or not travel.get("points") or not float(travel.get("speed", 0)) > 0:
            fail(f"maestro: not a travel step with points and a speed: {step}")
        for point in travel["points"]:
            parts = point.split(",")
            if len(parts) != 2:
                fail(f"maestro: Maestro refuses the point {point!r}")
            here = (float(parts[0]), float(parts[1]))
            if not travelled or travelled[-1] != here:
                travelled.append(here)
    deduplicated = [p for i, p in enumerate(positions) if i == 0 or positions[i - 1] != p]
    same_positions("maestro", travelled, deduplicated)

    # adb: shell syntax, the console's grammar, longitude first, pacing.
    script = export("adb")
    with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as f:
        f.write(script)
    subprocess.run(["sh", "-n", f.name], check=True)
    fixes, slept = [], 0.0
    grammar = re.compile(r"^adb emu geo fix (-?\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?)(?: (-?\d+(?:\.\d+)?))?$")
    for line in script.splitlines():
        if not line or line.startswith("#") or line == "set -e":
            continue
        if line.startswith("sleep "):
            slept += float(line.split()[1])
            continue
        match = grammar.match(line)
        if not match:
            fail(f"adb: not the console's `geo fix <longitude> <latitude> [<altitude>]`: {line}")
        fixes.append((float(match.group(2)), float(match.group(1))))
    same_positions("adb", fixes, positions)
    if abs(slept - duration) > 0.002 * len(positions) + 0.01:
        fail(f"adb: the pauses add up to {slept:.3f} s, the route lasts {duration:.3f} s")

    # One position every 5 s.
    sampled = gpxpy.parse(export("xcode-gpx", "--sample-interval", "5")).waypoints
    steps = {round(b.time.timestamp() - a.time.timestamp(), 3) for a, b in zip(sampled, sampled[1:-1])}
    if steps - {5.0}:
        fail(f"xcode-gpx --sample-interval 5: steps of {sorted(steps)} s")

    print(f"check_exports: {route}: {len(positions)} positions as xcode-gpx, simctl, maestro "
          f"({len(documents[1])} travel steps) and adb")


main()
