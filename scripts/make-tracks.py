#!/usr/bin/env python3
"""Regenerates the routes in tracks/ from hand-placed waypoints (see tracks/README.md).

Deterministic: the same script writes the same files. Positions are interpolated along each
leg at the route's speed; a little seeded wobble keeps recorded tracks looking recorded.
"""
import math
import random
from datetime import datetime, timedelta, timezone

R = 6371008.8


def dist(a, b):
    la1, lo1, la2, lo2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    return 2 * R * math.asin(math.sqrt(h))


def sample(waypoints, speed, every, start, wobble=0.0, seed=1, altitude=None):
    rng = random.Random(seed)
    out = []
    t = 0.0
    for a, b in zip(waypoints, waypoints[1:]):
        d = dist(a, b)
        n = max(1, int(d / (speed * every)))
        for k in range(n):
            f = k / n
            lat = a[0] + (b[0] - a[0]) * f + rng.gauss(0, wobble)
            lon = a[1] + (b[1] - a[1]) * f + rng.gauss(0, wobble)
            alt = altitude(lat, lon) if altitude else None
            out.append((start + timedelta(seconds=round(t)), lat, lon, alt))
            t += d / n / speed
    last = waypoints[-1]
    out.append((start + timedelta(seconds=round(t)), last[0], last[1], altitude(*last) if altitude else None))
    return out


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def alt_cupertino(lat, lon):
    # Gentle slope: the valley floor rises towards the foothills in the west.
    return round(60 + (-(lon + 122.02)) * 900 + (37.33 - lat) * 300, 1)


KML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2">\n<Document>\n'


def gx_track_kml(path, name, description, points, extra=""):
    with open(path, "w") as f:
        f.write(KML_HEAD)
        f.write(f"<name>{name}</name>\n<description>{description}</description>\n")
        f.write(extra)
        f.write(f"<Placemark>\n<name>{name}</name>\n<gx:Track>\n<altitudeMode>absolute</altitudeMode>\n")
        for t, *_ in points:
            f.write(f"<when>{iso(t)}</when>\n")
        for _, lat, lon, alt in points:
            f.write(f"<gx:coord>{lon:.6f} {lat:.6f} {alt}</gx:coord>\n")
        f.write("</gx:Track>\n</Placemark>\n</Document>\n</kml>\n")


# 1. A walk around Cupertino's civic centre, recorded every 5 s (gx:Track with times).
walk = [
    (37.33182, -122.03118),  # Infinite Loop
    (37.32790, -122.03230),  # De Anza Blvd southbound
    (37.32330, -122.03225),  # Stevens Creek Blvd & De Anza Blvd
    (37.32330, -122.03690),  # Stevens Creek Blvd westbound
    (37.32410, -122.03960),  # Memorial Park entrance
    (37.32180, -122.04090),  # round the park
    (37.31960, -122.03940),
    (37.31760, -122.03200),  # Torre Ave, Cupertino Library
    (37.31990, -122.02970),
    (37.32330, -122.02990),  # back north
    (37.33182, -122.03118),
]
gx_track_kml(
    "tracks/cupertino-walk.kml", "Cupertino civic centre walk",
    "A 5 km walk from Infinite Loop round Memorial Park and the library, recorded every 5 s.",
    sample(walk, 1.35, 5, datetime(2025, 6, 2, 16, 0, 0, tzinfo=timezone.utc), wobble=0.00001, seed=7,
           altitude=alt_cupertino))

# 2. A freeway drive on I-280, untimed: a LineString the replay times with --speed.
i280 = [
    (37.32300, -122.00750), (37.32460, -122.02800), (37.32560, -122.04300), (37.33020, -122.05800),
    (37.33700, -122.06950), (37.34800, -122.08300), (37.35960, -122.09600), (37.37050, -122.11000),
    (37.38260, -122.12400), (37.39240, -122.13700), (37.40020, -122.14900), (37.40820, -122.16300),
]
with open("tracks/i280-drive.kml", "w") as f:
    f.write(KML_HEAD)
    f.write("<name>I-280 northbound</name>\n<description>Cupertino to Page Mill Road on I-280, untimed. Replay with --speed 29 (about 65 mph).</description>\n")
    f.write("<Placemark>\n<name>I-280 northbound</name>\n<LineString>\n<tessellate>1</tessellate>\n<coordinates>\n")
    for lat, lon in i280:
        f.write(f"  {lon:.5f},{lat:.5f},0\n")
    f.write("</coordinates>\n</LineString>\n</Placemark>\n</Document>\n</kml>\n")

# 3. A bike ride on the Stevens Creek Trail, GPX 1.1 with times and elevation every 2 s.
ride = [
    (37.37440, -122.06440), (37.38020, -122.06550), (37.38580, -122.06700), (37.39180, -122.06480),
    (37.39800, -122.06520), (37.40390, -122.06790), (37.41050, -122.06960), (37.41710, -122.07050),
    (37.42330, -122.07210), (37.42840, -122.07530), (37.43320, -122.07590),
]
pts = sample(ride, 5.5, 2, datetime(2025, 6, 7, 15, 30, 0, tzinfo=timezone.utc), wobble=0.000008, seed=11,
             altitude=lambda lat, lon: round(max(2.0, 30 - (lat - 37.374) * 450), 1))
with open("tracks/stevens-creek-ride.gpx", "w") as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="Waypost scripts/make-tracks.py" xmlns="http://www.topografix.com/GPX/1/1">\n')
    f.write("<metadata><name>Stevens Creek Trail ride</name></metadata>\n<trk><name>Stevens Creek Trail ride</name><type>cycling</type>\n<trkseg>\n")
    for t, lat, lon, alt in pts:
        f.write(f'<trkpt lat="{lat:.6f}" lon="{lon:.6f}"><ele>{alt}</ele><time>{iso(t)}</time></trkpt>\n')
    f.write("</trkseg>\n</trk>\n</gpx>\n")

# 4. A morning commute from Sunnyvale to Cupertino past several cafés, recorded every 3 s;
#    the cafés are Placemarks so later scenarios can use them as regions.
cafes = [
    ("Sunnyvale Coffee Roasters", 37.37700, -122.03050),
    ("Murphy Avenue Espresso", 37.37660, -122.02980),
    ("Homestead Road Café", 37.33680, -122.03220),
    ("Stevens Creek Coffee House", 37.32360, -122.03150),
    ("Infinite Loop Café", 37.33160, -122.03050),
]
commute = [
    (37.37850, -122.03120), (37.37700, -122.03050), (37.37420, -122.03100), (37.36600, -122.03230),
    (37.35200, -122.03240), (37.33700, -122.03230), (37.32900, -122.03230), (37.32360, -122.03160),
    (37.32420, -122.02850), (37.32900, -122.02850), (37.33160, -122.03050),
]
extra = "".join(
    f"<Placemark>\n<name>{n}</name>\n<Point><coordinates>{lon:.5f},{lat:.5f},0</coordinates></Point>\n</Placemark>\n"
    for n, lat, lon in cafes)
gx_track_kml(
    "tracks/sunnyvale-commute.kml", "Sunnyvale to Cupertino commute",
    "A 7.5 km bike commute down Sunnyvale-Saratoga Rd and De Anza Blvd past five cafés, recorded every 3 s.",
    sample(commute, 4.5, 3, datetime(2025, 6, 3, 15, 10, 0, tzinfo=timezone.utc), wobble=0.00001, seed=5,
           altitude=alt_cupertino),
    extra)

# A walk to Stevens Creek Coffee House, a 25-minute stop at a table, and on: the stop is long
# enough for an automatic pause (15 min) and a visit (5 min).
start = datetime(2025, 6, 9, 9, 0, 0, tzinfo=timezone.utc)
walk_in = sample([(37.32000, -122.03150), (37.32360, -122.03150)], 1.4, 5, start, wobble=0.000005, seed=21,
                 altitude=alt_cupertino)
arrived = walk_in[-1][0]
rng = random.Random(22)
stop = [(arrived + timedelta(seconds=5 * k), 37.32360 + rng.gauss(0, 0.00002), -122.03150 + rng.gauss(0, 0.00002),
         alt_cupertino(37.32360, -122.03150)) for k in range(1, 300)]
walk_out = sample([(37.32360, -122.03150), (37.32900, -122.03150)], 1.4, 5, stop[-1][0] + timedelta(seconds=5),
                  wobble=0.000005, seed=23, altitude=alt_cupertino)
gx_track_kml(
    "tracks/cafe-stop.kml", "A coffee stop",
    "A walk to Stevens Creek Coffee House, 25 minutes at a table, and on north, recorded every 5 s.",
    walk_in + stop + walk_out)
