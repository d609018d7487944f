/// How long a handle lent to a closure — a ``ListReader``, a ``ListTransaction``, a ``ListImporter`` —
/// stays usable: until that closure returns. After ``close()`` every use throws
/// ``ListStoreError/transactionFinished`` instead of reaching a connection outside its transaction
/// and outside the store's lock.
final class HandleScope {
    private var finished = false

    /// Throws ``ListStoreError/transactionFinished`` once the handle's closure has returned.
    func check() throws {
        guard !finished else { throw ListStoreError.transactionFinished }
    }

    /// Ends the handle's validity.
    func close() { finished = true }
}
