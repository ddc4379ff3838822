"""Validates GeoJSON files as RFC 7946 with other people's code.

    python check_geojson.py FILE...

- `geojson` (PyPI): the objects' structure — closed rings of four or more positions, lines of
  two or more, positions of two or three numbers.
- `geojson-rewind` (PyPI): the winding of RFC 7946 §3.1.6 — rewinding a file wound right
  changes nothing.
- `shapely`: each exterior ring `is_ccw`, each hole not.
- One geometry's positions all have the same dimension (Waypost's rule; RFC 7946 §3.1.1
  allows two or three elements, and readers take a geometry's positions as one kind).
- `antimeridian` (PyPI): no line or polygon crosses the antimeridian (§3.1.9 — cut in two) — what
  the package would cut is already cut, to a micrometre.

Prints one line per problem and exits 1 if there is any.
"""
import copy
import json
import sys

import antimeridian
import geojson
from geojson_rewind import rewind
from shapely.geometry import LinearRing, shape


def positions(coordinates):
    """Every position in a nested coordinates array."""
    if coordinates and isinstance(coordinates[0], (int, float)):
        yield coordinates
        return
    for part in coordinates:
        yield from positions(part)


def geometries(geometry):
    if geometry is None:
        return
    if geometry["type"] == "GeometryCollection":
        for member in geometry["geometries"]:
            yield from geometries(member)
    else:
        yield geometry


def flat(coordinates):
    """The coordinates with positions of two numbers: the antimeridian is a matter of longitude."""
    if coordinates and isinstance(coordinates[0], (int, float)):
        return coordinates[:2]
    return [flat(part) for part in coordinates]


def crosses_antimeridian(geometry):
    """Whether `antimeridian` would cut the geometry (a line or polygon) where it crosses 180°."""
    if geometry["type"] not in ("LineString", "MultiLineString", "Polygon", "MultiPolygon"):
        return False
    written = {"type": geometry["type"], "coordinates": flat(geometry["coordinates"])}
    fixed = shape(antimeridian.fix_geojson(copy.deepcopy(written))).normalize()
    written = shape(written).normalize()
    return fixed.geom_type != written.geom_type or not fixed.equals_exact(written, tolerance=1e-5)


def check(path):
    problems = []
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    document = json.loads(text)
    parsed = geojson.loads(text)
    if not parsed.is_valid:
        problems.append(f"geojson: {parsed.errors()}")
    features = document.get("features", [])
    # Geometry by geometry: geojson-rewind 1.2.1 fails on a null geometry (which §3.2 allows).
    for index, feature in enumerate(features):
        geometry = feature.get("geometry")
        if geometry is not None and rewind(copy.deepcopy(geometry), rfc7946=True) != geometry:
            problems.append(f"feature {index}: geojson-rewind: rings are not wound as RFC 7946 §3.1.6 says")
    polygons = 0
    for index, feature in enumerate(features):
        for geometry in geometries(feature.get("geometry")):
            if crosses_antimeridian(geometry):
                problems.append(f"feature {index}: antimeridian: the {geometry['type']} crosses 180° uncut (§3.1.9)")
            dimensions = {len(p) for p in positions(geometry["coordinates"])}
            if len(dimensions) > 1:
                problems.append(f"feature {index}: {geometry['type']} mixes positions of {sorted(dimensions)} numbers")
            rings_of = {"Polygon": [geometry["coordinates"]], "MultiPolygon": geometry["coordinates"]}
            for rings in rings_of.get(geometry["type"], []):
                polygons += 1
                for number, ring in enumerate(rings):
                    ccw = LinearRing([p[:2] for p in ring]).is_ccw
                    if ccw != (number == 0):
                        kind = "exterior ring" if number == 0 else f"hole {number}"
                        problems.append(f"feature {index}: shapely: {kind} is {'' if ccw else 'not '}counter-clockwise")
    for problem in problems:
        print(f"{path}: {problem}")
    return problems, polygons


def main(paths):
    failed = 0
    polygons = 0
    for path in paths:
        problems, count = check(path)
        failed += bool(problems)
        polygons += count
    print(f"check_geojson: {len(paths)} files, {polygons} polygons, {failed} with problems")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
