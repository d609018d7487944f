extension ListStore {
    /// The deepest nesting of arrays and objects a payload may have: `[[1]]` is 2 deep. SQLite's JSON
    /// functions refuse deeper text (their limit is 1000 since SQLite 3.42, 2000 before), so a payload
    /// ListStore accepts is one every SQLite can read with `json_extract` and its kin.
    package static let maximumPayloadDepth = PayloadDepth.maximum

    /// Throws ``ListStoreError/payloadTooDeep(_:)`` when `payload` nests arrays and objects deeper than
    /// ``maximumPayloadDepth``. Counts brackets outside strings only; it does not check that the text
    /// is JSON (the store does that when the payload is written).
    package static func checkPayloadDepth(_ payload: String) throws {
        try PayloadDepth.check(payload)
    }
}
