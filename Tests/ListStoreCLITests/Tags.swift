import Testing

extension Tag {
    /// Suites that take more than about ten seconds (crash states, process kills, model runs): README.md's
    /// quick loop leaves them out with `swift test --skip`.
    @Tag static var slow: Self
}
