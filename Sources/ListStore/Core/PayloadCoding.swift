import Foundation

/// How typed payloads are encoded and decoded: one `JSONEncoder`/`JSONDecoder` configuration, then the
/// canonical form (``CanonicalJSON``).
enum TypedPayload {
    /// `value` as canonical JSON text; throws `payloadNotEncodable` or `payloadTooDeep`.
    static func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .deferredToDate
        encoder.dataEncodingStrategy = .base64
        encoder.nonConformingFloatEncodingStrategy = .throw
        let data: Data
        do { data = try encoder.encode(value) } catch { throw ListStoreError.payloadNotEncodable(type: "\(T.self)", reason: reason(error)) }
        let text = String(decoding: data, as: UTF8.self)
        try PayloadDepth.check(text)
        do { return try CanonicalJSON.canonical(text) } catch let error as CanonicalJSON.Failure {
            throw ListStoreError.payloadNotEncodable(type: "\(T.self)", reason: error.reason)
        }
    }

    /// The payload text of row `row` decoded as `T`; throws `payloadNotDecodable` naming the row.
    static func decode<T: Decodable>(_ type: T.Type, from payload: String, row: RowID) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .deferredToDate
        decoder.dataDecodingStrategy = .base64
        do { return try decoder.decode(T.self, from: Data(payload.utf8)) } catch {
            throw ListStoreError.payloadNotDecodable(row: row, type: "\(T.self)", reason: reason(error))
        }
    }

    /// An encoding or decoding error in one line: what, and where in the value.
    private static func reason(_ error: any Error) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.isEmpty ? "the top level" : codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        func detail(_ context: DecodingError.Context) -> String {
            context.debugDescription.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        }
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "no member \"\(key.stringValue)\" at \(path(context.codingPath))"
        case DecodingError.valueNotFound(let type, let context):
            return "null where \(type) is needed, at \(path(context.codingPath))"
        case DecodingError.typeMismatch(let type, let context):
            return "expected \(type) at \(path(context.codingPath)) (\(detail(context)))"
        case DecodingError.dataCorrupted(let context):
            return "\(detail(context)) at \(path(context.codingPath))"
        case EncodingError.invalidValue(_, let context):
            return "\(context.debugDescription.split(whereSeparator: \.isNewline).first.map(String.init) ?? "an invalid value") at \(path(context.codingPath))"
        default:
            return "\(error)".split(whereSeparator: \.isNewline).first.map(String.init) ?? "\(type(of: error))"
        }
    }
}

extension NewRow {
    /// A new row with `title` whose payload is `value`, encoded canonically (the same
    /// JSON for equal values), for any insert: `try tx.insertRows(items.map { try NewRow(title: $0.name, encoding: $0) }, intoSection: 0)`.
    public init(title: String, encoding value: some Encodable) throws {
        self.init(title: title, payload: try TypedPayload.encode(value))
    }
}

extension PayloadUpdate {
    /// Replace the payload with `value`, encoded canonically (the same JSON for equal values).
    public static func encoding(_ value: some Encodable) throws -> PayloadUpdate {
        .set(try TypedPayload.encode(value))
    }
}

extension ListRow {
    /// The payload decoded as `type`, or nil when the row has none. Dates are read as a typed write
    /// stores them (canonical JSON). Throws
    /// a ``ListStoreError/Family/invalidInput`` error (payload not decodable), naming this row, when the payload is
    /// not a `type`.
    public func payload<T: Decodable>(as type: T.Type) throws -> T? {
        guard let payload else { return nil }
        return try TypedPayload.decode(type, from: payload, row: id)
    }
}
