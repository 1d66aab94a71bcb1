// swift-tools-version: 6.0
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "MailSearch",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "IMAPCore", targets: ["IMAPCore"]),
        .library(name: "MailMIME", targets: ["MailMIME"]),
        .library(name: "Transport", targets: ["Transport"]),
        .library(name: "IMAPClient", targets: ["IMAPClient"]),
        .library(name: "MailSearch", targets: ["MailSearch"]),
        .library(name: "MockIMAPServer", targets: ["MockIMAPServer"]),
        .library(name: "MockIMAPServerTesting", targets: ["MockIMAPServerTesting"]),
        .executable(name: "mailsearch", targets: ["mailsearch"]),
        .executable(name: "mailsearch-bench", targets: ["mailsearch-bench"]),
        .executable(name: "mock-imap-server", targets: ["mock-imap-server"]),
    ],
    targets: [
        // OpenSSL's headers; its libraries are loaded at run time by COpenSSLLoader (not linked:
        // no pkg-config, whose flags link them).
        .systemLibrary(
            name: "COpenSSL",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(name: "COpenSSLLoader"),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(name: "IMAPCore", swiftSettings: strictSettings),
        .target(name: "MailMIME", swiftSettings: strictSettings),
        .target(name: "SearchSemantics", dependencies: ["IMAPCore", "MailMIME"], swiftSettings: strictSettings),
        .target(name: "JSONText", swiftSettings: strictSettings),
        .systemLibrary(name: "CProcessControl"),
        .target(name: "SystemLayer", dependencies: ["CProcessControl"], swiftSettings: strictSettings),
        .target(
            name: "Transport", dependencies: ["COpenSSL", "COpenSSLLoader", "SystemLayer"], swiftSettings: strictSettings),
        .target(
            name: "IMAPClient",
            dependencies: ["IMAPCore", "MailMIME", "Transport"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "MailSearch",
            dependencies: [
                "CSQLite", "CZlib", "IMAPClient", "IMAPCore", "MailMIME", "SearchSemantics", "SystemLayer",
                "Transport",
            ],
            swiftSettings: strictSettings),
        .target(
            name: "MailSearchCLI",
            dependencies: [
                "MailSearch", "IMAPClient", "IMAPCore", "JSONText", "MailMIME", "SystemLayer", "Transport",
                "MockIMAPServer",
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "mailsearch",
            dependencies: ["MailSearchCLI", "MailSearch", "IMAPCore", "MailMIME", "SystemLayer"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "MockIMAPServer",
            dependencies: ["IMAPCore", "JSONText", "MailMIME", "SearchSemantics", "Transport"],
            path: "MockServer/Sources/MockIMAPServer",
            swiftSettings: strictSettings
        ),
        .target(name: "TestHangGuard", path: "MockServer/Sources/TestHangGuard", swiftSettings: strictSettings),
        .target(
            name: "MockIMAPServerTesting",
            dependencies: ["MockIMAPServer", "TestHangGuard", "IMAPCore", "Transport"],
            path: "MockServer/Sources/MockIMAPServerTesting",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "mock-imap-server",
            dependencies: ["MockIMAPServer"],
            path: "MockServer/Sources/mock-imap-server",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "mailsearch-bench",
            dependencies: [
                "IMAPCore", "MailMIME", "IMAPClient", "Transport", "MockIMAPServer", "MailSearch", "MailSearchCLI",
            ],
            path: "Benchmarks/mailsearch-bench",
            swiftSettings: strictSettings
        ),
        .testTarget(name: "IMAPCoreTests", dependencies: ["IMAPCore", "TestSupport"], swiftSettings: strictSettings),
        .testTarget(name: "MailMIMETests", dependencies: ["MailMIME", "TestSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "SystemLayerTests", dependencies: ["SystemLayer", "TestSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "TransportTests", dependencies: ["Transport", "TestSupport"], swiftSettings: strictSettings),
        .executableTarget(
            name: "test-probe",
            dependencies: ["Transport", "TestSupport"],
            path: "Tests/Support/TestProbe",
            swiftSettings: strictSettings
        ),
        .target(
            name: "TestSupport", dependencies: ["TestHangGuard"], path: "Tests/Support/TestSupport",
            swiftSettings: strictSettings),
        .testTarget(
            name: "IMAPClientTests",
            dependencies: ["IMAPClient", "IMAPCore", "Transport", "MailMIME", "TestSupport", "MockIMAPServer"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "DocumentationTests", dependencies: ["TestSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "MockIMAPServerTests",
            dependencies: ["MockIMAPServer", "MockIMAPServerTesting", "IMAPClient", "IMAPCore", "MailMIME", "Transport", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MailSearchTests",
            dependencies: [
                "MailSearch", "IMAPClient", "IMAPCore", "MailMIME", "MockIMAPServer", "TestSupport", "Transport",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MailSearchCLITests",
            dependencies: [
                "MailSearchCLI", "MailSearch", "IMAPClient", "IMAPCore", "JSONText", "MailMIME", "SystemLayer",
                "Transport", "MockIMAPServer", "TestSupport",
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
