#!/usr/bin/env python3
"""Checks Waypost's GPX extensions, KML arrays and NMEA 0183 with other people's code.

  check_formats.py extensions IN.gpx OUT.gpx     gpxpy: every per-point value of IN is in OUT
  check_formats.py unicsv IN.csv OUT.csv          gpsbabel's reading of IN and OUT agree
  check_formats.py kml OURS.kml GPSBABEL.kml      the same gx:SimpleArrayData as gpsbabel writes
  check_formats.py nmea FILE EVENTS.jsonl         pynmea2 parses every sentence; fixes match events
  check_formats.py gpsd TPV.json EVENTS.jsonl     gpsd's TPV reports match the replayed fixes

Exits 1 with one line per problem.
"""
import csv
import datetime
import json
import math
import sys
import xml.etree.ElementTree as ET

# The names Waypost knows by meaning (Sources/Tracks/Model/PointValue.swift).
MEANINGS = {
    "atemp": "temperature", "temp": "temperature", "temperature": "temperature",
    "wtemp": "waterTemperature", "watertemperature": "waterTemperature", "depth": "depth",
    "hr": "heartRate", "heartrate": "heartRate", "heart_rate": "heartRate", "heartratebpm": "heartRate",
    "heart": "heartRate", "cad": "cadence", "cadence": "cadence", "runcadence": "cadence",
    "speed": "speed", "course": "course", "bearing": "bearing",
    "power": "power", "watts": "power", "powerinwatts": "power",
}
KML = "{http://www.opengis.net/kml/2.2}"
GX = "{http://www.google.com/kml/ext/2.2}"
problems = []


def fail(message):
    problems.append(message)


def meaning(name):
    return MEANINGS.get(name.lower(), name)


def local(tag):
    return tag.rsplit("}", 1)[-1]


def point_values(point):
    """Numeric leaves under a gpxpy point's extensions, by meaning."""
    values = {}

    def walk(element):
        children = list(element)
        if not children:
            try:
                value = float((element.text or "").strip())
            except ValueError:
                return
            name = element.get("name") if local(element.tag) == "value" and element.get("name") else local(element.tag)
            values[meaning(name)] = value
        for child in children:
            walk(child)

    for element in point.extensions:
        walk(element)
    return values


def check_extensions(source, written):
    import gpxpy

    with open(source, encoding="utf-8") as f:
        a = gpxpy.parse(f)
    with open(written, encoding="utf-8") as f:
        b = gpxpy.parse(f)
    pa = [p for t in a.tracks for s in t.segments for p in s.points]
    pb = [p for t in b.tracks for s in t.segments for p in s.points]
    if len(pa) != len(pb) or not pa:
        fail(f"{written}: {len(pb)} track points, {source} has {len(pa)}")
        return
    counted = 0
    for i, (p, q) in enumerate(zip(pa, pb)):
        if (p.latitude, p.longitude, p.elevation, p.time) != (q.latitude, q.longitude, q.elevation, q.time):
            fail(f"{written}: point {i} moved: {q} (was {p})")
        va, vb = point_values(p), point_values(q)
        counted += len(va)
        if va != vb:
            fail(f"{written}: point {i} values {vb}, {source} has {va}")
    print(f"check_formats.py: {written}: {len(pb)} points, {counted} extension values as in {source} (gpxpy)")


def check_unicsv(source, written):
    with open(source, encoding="utf-8") as f:
        a = list(csv.DictReader(f))
    with open(written, encoding="utf-8") as f:
        b = list(csv.DictReader(f))
    if len(a) != len(b) or not a:
        fail(f"{written}: gpsbabel read {len(b)} points, {len(a)} from {source}")
        return
    columns = [c for c in a[0] if c not in ("No",)]
    for column in columns:
        if column not in b[0]:
            fail(f"{written}: gpsbabel finds no {column} column, it does in {source}")
    for i, (p, q) in enumerate(zip(a, b)):
        for column in columns:
            if p.get(column) != q.get(column):
                fail(f"{written}: row {i + 1} {column} {q.get(column)!r}, {source} has {p.get(column)!r}")
                break
    print(f"check_formats.py: gpsbabel reads {written} as {source}: {len(a)} points, columns {', '.join(columns)}")


def arrays(path):
    result = {}
    for data in ET.parse(path).getroot().iter(GX + "SimpleArrayData"):
        values = []
        for v in data.findall(GX + "value"):
            text = (v.text or "").strip()
            values.append(float(text) if text else None)
        result.setdefault(data.get("name"), []).extend(values)
    return result


def check_kml(ours, theirs):
    a, b = arrays(ours), arrays(theirs)
    if not b:
        fail(f"{theirs}: gpsbabel wrote no gx:SimpleArrayData")
    for name, values in b.items():
        if name not in a:
            fail(f"{ours}: no gx:SimpleArrayData name={name!r}; gpsbabel writes one ({theirs})")
        elif len(a[name]) != len(values) or any(
            x != y and not (x is None and y in (None, 0.0)) for x, y in zip(a[name], values)
        ):
            # gpsbabel 1.8 writes 0 where a point lacks a value another point has; Waypost leaves it empty.
            fail(f"{ours}: {name} = {a[name][:8]}…, gpsbabel has {values[:8]}…")
    root = ET.parse(ours).getroot()
    declared = {f.get("name") for f in root.iter(GX + "SimpleArrayField")}
    for name in a:
        if name not in declared:
            fail(f"{ours}: gx:SimpleArrayData {name!r} has no gx:SimpleArrayField in a Schema")
    print(f"check_formats.py: {ours} has gpsbabel's arrays {sorted(b)} with the same values, and {sorted(set(a) - set(b))}")


def events(path):
    """Location events (by time) and the times of locationUnknown errors."""
    fixes, lost = {}, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            event = json.loads(line)
            if event["type"] == "location":
                fixes[event["t"]] = event
            elif event["type"] == "error" and event.get("error") == "locationUnknown":
                lost.append(event["t"])
    return fixes, lost


def stamp(date, time):
    moment = datetime.datetime.combine(date, time).replace(tzinfo=datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def close(a, b, tolerance):
    return a is not None and b is not None and abs(a - b) <= tolerance + 1e-9


def check_nmea(path, events_path):
    import pynmea2

    fixes, lost = events(events_path)
    seen, no_fix, count, date = {}, 0, 0, None
    epoch = {}
    with open(path, "rb") as f:
        raw = f.read()
    if not raw.endswith(b"\r\n") or b"\n" in raw.replace(b"\r\n", b""):
        fail(f"{path}: lines do not all end with CR LF")
    for number, line in enumerate(raw.decode("ascii").split("\r\n")[:-1], 1):
        count += 1
        if len(line) + 2 > 82:
            fail(f"{path}:{number}: {len(line) + 2} characters, NMEA 0183 allows 82")
        try:
            sentence = pynmea2.parse(line, check=True)
        except pynmea2.ParseError as error:
            fail(f"{path}:{number}: pynmea2: {error}")
            continue
        kind = sentence.sentence_type
        # An epoch is GGA, GSA, RMC, VTG (GGA first, as gpsbabel reads it: docs/nmea.md).
        if kind == "GGA":
            epoch = {"gga": sentence}
        elif kind == "GSA":
            epoch["gsa"] = sentence
        elif kind == "RMC":
            date = sentence.datestamp
            epoch["rmc"] = sentence
        elif kind == "VTG":
            epoch["vtg"] = sentence
            rmc, gga, gsa = epoch.get("rmc"), epoch.get("gga"), epoch.get("gsa")
            if rmc is None or gga is None or gsa is None:
                fail(f"{path}:{number}: an epoch without GGA, GSA or RMC before its VTG")
                continue
            t = stamp(date, rmc.timestamp)
            if rmc.status == "V":
                no_fix += 1
                if gga.gps_qual != 0 or gsa.mode_fix_type != "1" or rmc.lat or gga.lat:
                    fail(f"{path}:{number}: no-fix epoch with a fix in it")
                continue
            event = fixes.get(t)
            if event is None:
                fail(f"{path}:{number}: a fix at {t}, no location event then")
                continue
            seen[t] = True
            tolerance = 0.5e-5 / 60
            for s in (rmc, gga):
                if not close(s.latitude, event["lat"], tolerance) or not close(s.longitude, event["lon"], tolerance):
                    fail(f"{path}:{number}: {s.sentence_type} {s.latitude},{s.longitude} vs {event['lat']},{event['lon']}")
            if event["vacc"] >= 0 and not close(gga.altitude, event["alt"], 0.05 + 0.0005):
                fail(f"{path}:{number}: GGA altitude {gga.altitude} vs {event['alt']}")
            hdop = min(max(round(event["hacc"] / 5, 1), 0.1), 99.9)
            # hacc is printed to 0.01 m: at a rounding boundary the HDOP may be 0.1 apart.
            if not close(float(gga.horizontal_dil), hdop, 0.1):
                fail(f"{path}:{number}: HDOP {gga.horizontal_dil}, expected hacc {event['hacc']} / 5 m = {hdop}")
            # NMEA's 0.01 knot, plus the event stream's 0.001 m/s and 0.01° and 0.001 m.
            if event["speed"] >= 0 and not close(rmc.spd_over_grnd * 1852 / 3600, event["speed"], 0.0026 + 0.0005):
                fail(f"{path}:{number}: speed {rmc.spd_over_grnd} kn vs {event['speed']} m/s")
            if event["course"] >= 0 and not close(rmc.true_course, event["course"] % 360, 0.005 + 0.005):
                fail(f"{path}:{number}: course {rmc.true_course} vs {event['course']}")
    missing = sorted(set(fixes) - set(seen))
    if missing:
        fail(f"{path}: {len(missing)} location events have no fix, the first at {missing[0]}")
    if lost and no_fix == 0:
        fail(f"{path}: the signal was lost at {lost[0]}, and no epoch says no fix")
    print(f"check_formats.py: pynmea2 parsed {count} sentences of {path}: {len(seen)} fixes as replayed, "
          f"{no_fix} epochs without a fix")


def check_gpsd(path, events_path):
    fixes, lost = events(events_path)
    reports = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                report = json.loads(line)
            except json.JSONDecodeError:
                continue
            if report.get("class") == "TPV" and "time" in report:
                reports[report["time"]] = report  # gpsd may report an epoch again while it learns the cycle
    matched = 0
    for t, event in sorted(fixes.items()):
        report = reports.get(t)
        if report is None:
            fail(f"{path}: gpsd reported no TPV at {t}")
            continue
        problems_before = len(problems)
        if report.get("mode", 0) < 2:
            fail(f"{path}: TPV at {t} has mode {report.get('mode')}, a fix was sent")
            continue
        tolerance = 0.5e-5 / 60 + 1e-9
        if not close(report.get("lat"), event["lat"], tolerance) or not close(report.get("lon"), event["lon"], tolerance):
            fail(f"{path}: TPV at {t} at {report.get('lat')},{report.get('lon')}, replayed {event['lat']},{event['lon']}")
        if event["vacc"] >= 0 and not close(report.get("altMSL", report.get("alt")), event["alt"], 0.05 + 0.0005 + 1e-4):
            fail(f"{path}: TPV at {t} altMSL {report.get('altMSL')}, replayed {event['alt']}")
        if event["speed"] >= 0 and not close(report.get("speed"), event["speed"], 0.0026 + 0.0005 + 0.0005):
            fail(f"{path}: TPV at {t} speed {report.get('speed')}, replayed {event['speed']}")
        if event["course"] >= 0 and not close(report.get("track"), event["course"] % 360, 0.005 + 0.005 + 1e-4):
            fail(f"{path}: TPV at {t} track {report.get('track')}, replayed {event['course']}")
        matched += len(problems) == problems_before
    no_fix = [t for t, r in reports.items() if r.get("mode") == 1]
    if lost and not no_fix:
        fail(f"{path}: the signal was lost at {lost[0]}, and gpsd reported no TPV without a fix")
    print(f"check_formats.py: gpsd's TPV reports match {matched} of {len(fixes)} replayed fixes; "
          f"{len(no_fix)} reports without a fix during signal loss")


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    command, a, b = sys.argv[1:]
    {"extensions": check_extensions, "unicsv": check_unicsv, "kml": check_kml, "nmea": check_nmea,
     "gpsd": check_gpsd}[command](a, b)
    for problem in problems[:50]:
        print(f"check_formats.py: FAIL: {problem}", file=sys.stderr)
    if problems:
        print(f"check_formats.py: {len(problems)} problems", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
