#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The solution of an inverse geodesic problem: how far, and in which directions.
public struct GeodesicLine: Sendable, Hashable {
    /// Length of the shortest path on the ellipsoid, metres.
    public var distance: Double
    /// Azimuth at the first point, degrees clockwise from north, (−180, 180].
    public var initialAzimuth: Double
    /// Azimuth at the second point (the direction of travel on arrival), degrees, (−180, 180].
    public var finalAzimuth: Double
}

/// Geodesics on an ellipsoid: the inverse problem (distance and azimuths between two points)
/// and the direct problem (where a given distance along a given azimuth leads).
///
/// Both use Vincenty's series for the distance and longitude integrals (truncation error well
/// under a millimetre on the Earth). Vincenty's usual iteration on longitude does not converge
/// for nearly antipodal points, so the inverse problem is solved differently: the points are
/// brought into Karney's canonical frame (first point in the southern hemisphere and at least
/// as far from the equator as the second, eastward travel), where the longitude reached at
/// the second point's latitude grows monotonically with the starting azimuth from 0 to π.
/// A bracketed root search on that azimuth then converges for every pair of points.
///
/// ```swift
/// let line = Geodesic.wgs84.inverse(
///     Coordinate(latitude: 50.06632, longitude: -5.71475),
///     Coordinate(latitude: 58.64402, longitude: -3.07009))
/// line.distance  // 969954.166 m, Land's End to John o' Groats
/// ```
///
/// Accuracy is pinned by tests against GeographicLib's GeodTest vectors (≤ 1 mm).
public struct Geodesic: Sendable {
    public let ellipsoid: Ellipsoid

    public init(_ ellipsoid: Ellipsoid) {
        self.ellipsoid = ellipsoid
    }

    public static let wgs84 = Geodesic(.wgs84)

    /// Keeps cos β away from zero at the poles, as GeographicLib does.
    private static let tiny = Double.leastNormalMagnitude.squareRoot()

    /// Shortest distance between two points, metres.
    public func distance(_ p1: Coordinate, _ p2: Coordinate) -> Double {
        inverse(p1, p2).distance
    }

    /// Solves the inverse problem between `p1` and `p2`.
    public func inverse(_ p1: Coordinate, _ p2: Coordinate) -> GeodesicLine {
        var lon12 = Angle.normalized(p2.longitude - p1.longitude)
        var lonSign = lon12 >= 0 ? 1.0 : -1.0
        lon12 *= lonSign
        var lat1 = p1.latitude
        var lat2 = p2.latitude
        let swapSign = abs(lat1) < abs(lat2) ? -1.0 : 1.0
        if swapSign < 0 {
            lonSign = -lonSign
            swap(&lat1, &lat2)
        }
        let latSign = lat1 < 0 ? 1.0 : -1.0
        lat1 *= latSign
        lat2 *= latSign

        var solution = canonicalInverse(lat1: lat1, lat2: lat2, lon12: lon12 * Angle.degree)

        // Undo the canonical transformation (azimuths only; the distance is invariant).
        if swapSign < 0 {
            swap(&solution.sinAlpha1, &solution.sinAlpha2)
            swap(&solution.cosAlpha1, &solution.cosAlpha2)
        }
        solution.sinAlpha1 *= swapSign * lonSign
        solution.cosAlpha1 *= swapSign * latSign
        solution.sinAlpha2 *= swapSign * lonSign
        solution.cosAlpha2 *= swapSign * latSign
        return GeodesicLine(
            distance: solution.distance,
            initialAzimuth: atan2(solution.sinAlpha1, solution.cosAlpha1) / Angle.degree,
            finalAzimuth: atan2(solution.sinAlpha2, solution.cosAlpha2) / Angle.degree
        )
    }

    /// Solves the direct problem: the point `distance` metres from `start` along `azimuth`
    /// (degrees clockwise from north), and the azimuth on arrival.
    public func direct(from start: Coordinate, azimuth: Double, distance: Double) -> (
        coordinate: Coordinate, finalAzimuth: Double
    ) {
        let f = ellipsoid.f
        let alpha1 = azimuth * Angle.degree
        let sinAlpha1 = sin(alpha1)
        let cosAlpha1 = cos(alpha1)
        let (sinU1, cosU1) = reducedLatitude(start.latitude)
        let sigma1 = atan2(sinU1, cosU1 * cosAlpha1)
        let sinAlpha = cosU1 * sinAlpha1
        let cos2Alpha = 1 - sinAlpha * sinAlpha
        let (a, b) = seriesAB(cos2Alpha: cos2Alpha)
        let sigma0 = distance / (ellipsoid.b * a)

        var sigma = sigma0
        var cos2SigmaM = 0.0
        for _ in 0..<200 {
            cos2SigmaM = cos(2 * sigma1 + sigma)
            let next = sigma0 + deltaSigma(b: b, sigma: sigma, cos2SigmaM: cos2SigmaM)
            defer { sigma = next }
            if abs(next - sigma) < 1e-15 { break }
        }
        cos2SigmaM = cos(2 * sigma1 + sigma)
        let sinSigma = sin(sigma)
        let cosSigma = cos(sigma)
        let t = sinU1 * sinSigma - cosU1 * cosSigma * cosAlpha1
        let lat2 = atan2(sinU1 * cosSigma + cosU1 * sinSigma * cosAlpha1, (1 - f) * hypot(sinAlpha, t))
        let lambda = atan2(sinSigma * sinAlpha1, cosU1 * cosSigma - sinU1 * sinSigma * cosAlpha1)
        let lon12 =
            lambda
            - longitudeCorrection(sinAlpha0: sinAlpha, cos2Alpha0: cos2Alpha, sigma12: sigma, cos2SigmaM: cos2SigmaM)
        let alpha2 = atan2(sinAlpha, -t)
        return (
            Coordinate(
                latitude: lat2 / Angle.degree,
                longitude: Angle.normalized(start.longitude + lon12 / Angle.degree)
            ),
            alpha2 / Angle.degree
        )
    }

    // MARK: - Canonical inverse

    private struct CanonicalSolution {
        var distance: Double
        var sinAlpha1: Double
        var cosAlpha1: Double
        var sinAlpha2: Double
        var cosAlpha2: Double
    }

    /// The inverse problem for lat1 ≤ 0, |lat2| ≤ |lat1|, 0 ≤ lon12 ≤ π (radians).
    private func canonicalInverse(lat1: Double, lat2: Double, lon12: Double) -> CanonicalSolution {
        let f = ellipsoid.f
        // Both on the equator and closer than the equator's conjugate point: follow the equator.
        if lat1 == 0 && lat2 == 0 && lon12 <= (1 - f) * .pi {
            return CanonicalSolution(
                distance: ellipsoid.a * lon12, sinAlpha1: 1, cosAlpha1: 0, sinAlpha2: 1, cosAlpha2: 0)
        }
        var (sinBeta1, cosBeta1) = reducedLatitude(lat1)
        if sinBeta1 == 0 { sinBeta1 = -Self.tiny }  // a limit just south of the equator
        let (sinBeta2, cosBeta2) = reducedLatitude(lat2)
        let frame = AuxiliarySphere(
            sinBeta1: sinBeta1, cosBeta1: cosBeta1, sinBeta2: sinBeta2, cosBeta2: cosBeta2, flattening: f)

        // Illinois (modified regula falsi) on g(α1) = λ12(α1) − lon12, bracketed by [0, π].
        var lo = 0.0
        var hi = Double.pi
        var gLo = -lon12
        var gHi = Double.pi - lon12
        var alpha1: Double = lon12 == 0 ? 0 : lon12 == Double.pi ? Double.pi : Double.pi / 2
        if lon12 > 0 && lon12 < .pi {
            var side = 0
            for _ in 0..<300 {
                var x = (lo * gHi - hi * gLo) / (gHi - gLo)
                if !(x > lo && x < hi) { x = (lo + hi) / 2 }
                let g = frame.evaluate(alpha1: x).lambda12 - lon12
                alpha1 = x
                if g == 0 { break }
                if g < 0 {
                    lo = x
                    gLo = g
                    if side == -1 { gHi /= 2 }
                    side = -1
                } else {
                    hi = x
                    gHi = g
                    if side == 1 { gLo /= 2 }
                    side = 1
                }
                if hi - lo <= 4 * Double.ulpOfOne * max(1, hi) { break }
            }
        }
        let point = frame.evaluate(alpha1: alpha1)
        let (a, b) = seriesAB(cos2Alpha: point.cos2Alpha0)
        let distance =
            ellipsoid.b * a * (point.sigma12 - deltaSigma(b: b, sigma: point.sigma12, cos2SigmaM: point.cos2SigmaM))
        return CanonicalSolution(
            distance: distance,
            sinAlpha1: sin(alpha1), cosAlpha1: cos(alpha1),
            sinAlpha2: point.sinAlpha2, cosAlpha2: point.cosAlpha2)
    }

    /// The path from the first point, at a trial azimuth, to the second point's latitude.
    private struct AuxiliarySphere {
        let sinBeta1, cosBeta1, sinBeta2, cosBeta2, flattening: Double

        struct Point {
            var lambda12, sigma12, cos2SigmaM, cos2Alpha0, sinAlpha2, cosAlpha2: Double
        }

        func evaluate(alpha1: Double) -> Point {
            let sinAlpha1 = sin(alpha1)
            let cosAlpha1 = cos(alpha1)
            let sinAlpha0 = sinAlpha1 * cosBeta1
            let cos2Alpha0 = 1 - sinAlpha0 * sinAlpha0
            // On arrival the path heads north (Karney 2013, eq. 45).
            let sinAlpha2 = sinAlpha0 / cosBeta2
            let cosAlpha2 =
                (cosBeta2 != cosBeta1 || sinBeta2 != sinBeta1)
                ? ((cosAlpha1 * cosBeta1) * (cosAlpha1 * cosBeta1) + (cosBeta2 - cosBeta1) * (cosBeta2 + cosBeta1))
                    .squareRoot() / cosBeta2
                : abs(cosAlpha1)
            // Arc lengths σ and longitudes ω on the auxiliary sphere, measured from the node.
            let sigma1 = atan2(sinBeta1, cosAlpha1 * cosBeta1)
            let ssig1 = sinBeta1, csig1 = cosAlpha1 * cosBeta1
            let ssig2 = sinBeta2, csig2 = cosAlpha2 * cosBeta2
            let sigma12 = atan2(max(0, csig1 * ssig2 - ssig1 * csig2), csig1 * csig2 + ssig1 * ssig2)
            let somg1 = sinAlpha0 * sinBeta1, comg1 = csig1
            let somg2 = sinAlpha0 * sinBeta2, comg2 = csig2
            let omega12 = atan2(max(0, comg1 * somg2 - somg1 * comg2), comg1 * comg2 + somg1 * somg2)
            let cos2SigmaM = cos(2 * sigma1 + sigma12)
            let lambda12 =
                omega12
                - Geodesic.longitudeCorrection(
                    flattening: flattening, sinAlpha0: sinAlpha0, cos2Alpha0: cos2Alpha0,
                    sigma12: sigma12, cos2SigmaM: cos2SigmaM)
            return Point(
                lambda12: lambda12, sigma12: sigma12, cos2SigmaM: cos2SigmaM, cos2Alpha0: cos2Alpha0,
                sinAlpha2: sinAlpha2, cosAlpha2: cosAlpha2)
        }
    }

    // MARK: - Vincenty's series

    /// sin and cos of the reduced latitude β, with tan β = (1 − f) tan φ.
    private func reducedLatitude(_ latitude: Double) -> (Double, Double) {
        let phi = latitude * Angle.degree
        let s = (1 - ellipsoid.f) * sin(phi)
        let c = cos(phi)
        let h = hypot(s, c)
        return (s / h, max(Self.tiny, c / h))
    }

    /// Vincenty's A and B for the distance integral.
    private func seriesAB(cos2Alpha: Double) -> (a: Double, b: Double) {
        let u2 = cos2Alpha * ellipsoid.ep2
        let a = 1 + u2 / 16384 * (4096 + u2 * (-768 + u2 * (320 - 175 * u2)))
        let b = u2 / 1024 * (256 + u2 * (-128 + u2 * (74 - 47 * u2)))
        return (a, b)
    }

    private func deltaSigma(b: Double, sigma: Double, cos2SigmaM: Double) -> Double {
        let sinSigma = sin(sigma)
        let cosSigma = cos(sigma)
        let c2 = cos2SigmaM * cos2SigmaM
        return b * sinSigma
            * (cos2SigmaM
                + b / 4
                * (cosSigma * (-1 + 2 * c2) - b / 6 * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * c2)))
    }

    private func longitudeCorrection(sinAlpha0: Double, cos2Alpha0: Double, sigma12: Double, cos2SigmaM: Double)
        -> Double
    {
        Self.longitudeCorrection(
            flattening: ellipsoid.f, sinAlpha0: sinAlpha0, cos2Alpha0: cos2Alpha0, sigma12: sigma12,
            cos2SigmaM: cos2SigmaM)
    }

    /// ω12 − λ12: how much less the ellipsoid's longitude advances than the sphere's.
    fileprivate static func longitudeCorrection(
        flattening f: Double, sinAlpha0: Double, cos2Alpha0: Double, sigma12: Double, cos2SigmaM: Double
    ) -> Double {
        let c = f / 16 * cos2Alpha0 * (4 + f * (4 - 3 * cos2Alpha0))
        return (1 - c) * f * sinAlpha0
            * (sigma12 + c * sin(sigma12) * (cos2SigmaM + c * cos(sigma12) * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
    }
}
