import Foundation
import TLS

/// A throw-away certificate authority and a server certificate it signed for localhost,
/// 127.0.0.1 and ::1, written as PEM files into a fresh temporary folder. Tests make their own:
/// no key or certificate is committed.
///
/// ```swift
/// let files = try TestCertificates.make()
/// defer { files.remove() }
/// let tls = try TLSContext.server(certificateFile: files.certificate, keyFile: files.key, now: TestCertificates.now)
/// ```
public struct TestCertificates: Sendable {
    public let folder: String
    public let authority: String
    public let certificate: String
    public let key: String
    public let issued: CertificateIssuer.Issued
    public let authorityIssued: CertificateIssuer.Issued

    /// Real time, as clients judge certificates.
    public static var now: Int64 { Int64(Date().timeIntervalSince1970) }

    public static func make(names: [String] = ["localhost", "127.0.0.1", "::1"]) throws -> TestCertificates {
        let folder = NSTemporaryDirectory() + "lerix-tls-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let ca = try CertificateIssuer.authority(commonName: "lerix-mock test CA", now: now)
        let leaf = try CertificateIssuer.server(names: names, signedBy: ca, now: now, days: 2)
        let files = TestCertificates(
            folder: folder,
            authority: folder + "/ca.pem",
            certificate: folder + "/cert.pem",
            key: folder + "/key.pem",
            issued: leaf,
            authorityIssued: ca
        )
        try write(ca.certificate.pem(), to: files.authority)
        try write(leaf.certificate.pem(), to: files.certificate)
        try write(leaf.key.pem(), to: files.key)
        return files
    }

    /// Writes `bytes` to `folder/name` and returns the path.
    @discardableResult
    public func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = folder + "/" + name
        try Self.write(bytes, to: path)
        return path
    }

    public static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    public func remove() {
        try? FileManager.default.removeItem(atPath: folder)
    }
}
