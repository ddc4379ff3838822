/// What shell completion offers for the file arguments (argument-parser's `.file(extensions:)`):
/// routes and configuration files by their extensions; directories are offered too, to walk into.
let trackExtensions = ["kml", "kmz", "gpx", "nmea", "nmea0183"]

/// Regions (without GeoJSON), rules, privacy profiles, beacons, credentials and scenarios.
let configExtensions = ["yaml", "yml", "json"]
