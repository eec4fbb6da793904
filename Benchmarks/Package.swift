// swift-tools-version:6.1
//
// Benchmarks for smsfilter (package-benchmark). Run from this folder:
//   swift package benchmark --target Matcher
//   swift package --allow-writing-to-package-directory benchmark thresholds update --target Matcher
//   swift package benchmark thresholds check --target Matcher      (exits non-zero on a regression)
// `swift run -c release matcher-tool` prints the same measurements as GB/s and writes the fixtures that
// `peers/matcher_peers.py` reads.
import PackageDescription

/// A path dependency's identity is its folder's name (`main`, `smsfilter`, a worktree's name…), not the
/// manifest's `name`, so it is derived from where this file is.
let root = String(#filePath.split(separator: "/").dropLast(2).last ?? "smsfilter").lowercased()

let package = Package(
    name: "smsfilter-benchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: "../"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .target(
            name: "MatcherFixtures",
            dependencies: [.product(name: "AhoCorasick", package: root)],
            path: "MatcherFixtures"
        ),
        .executableTarget(
            name: "Matcher",
            dependencies: [
                "MatcherFixtures",
                .product(name: "AhoCorasick", package: root),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Matcher",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "Zstd",
            dependencies: [
                .product(name: "ArchiveIO", package: root),
                .product(name: "BatchPipeline", package: root),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Zstd",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "Pipeline",
            dependencies: [
                .product(name: "ArchiveIO", package: root),
                .product(name: "MessageFilter", package: root),
                .product(name: "BatchPipeline", package: root),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Pipeline",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "matcher-tool",
            dependencies: ["MatcherFixtures", .product(name: "AhoCorasick", package: root)],
            path: "MatcherTool"
        ),
    ]
)
