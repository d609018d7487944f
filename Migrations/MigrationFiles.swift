/// The schema migrations compiled into the binary, in the order they are applied.
///
/// Each entry is one numbered `.sql` file of this folder; add a line here with every new file
/// (a test fails when a file is not registered, or is out of order).
package enum MigrationFiles {
    /// `(file name, SQL bytes)` for every migration, version 1 first.
    package static let all: [(name: String, bytes: [UInt8])] = [
        ("0001_create_lists.sql", PackageResources._001_create_lists_sql),
        ("0002_row_base_and_counts.sql", PackageResources._002_row_base_and_counts_sql),
        ("0003_change_log.sql", PackageResources._003_change_log_sql),
        ("0004_file_identity.sql", PackageResources._004_file_identity_sql),
        ("0005_change_log_hardening.sql", PackageResources._005_change_log_hardening_sql),
        ("0006_change_log_record_v2.sql", PackageResources._006_change_log_record_v2_sql),
        ("0007_sparse_positions.sql", PackageResources._007_sparse_positions_sql),
        ("0008_lists.sql", PackageResources._008_lists_sql),
        ("0009_history.sql", PackageResources._009_history_sql),
        ("0010_payload_indexes.sql", PackageResources._010_payload_indexes_sql),
        ("0011_payload_values_without_row_key.sql", PackageResources._011_payload_values_without_row_key_sql),
        ("0012_section_counts.sql", PackageResources._012_section_counts_sql),
        ("0013_title_index_notes.sql", PackageResources._013_title_index_notes_sql),
        ("0014_replica_identity.sql", PackageResources._014_replica_identity_sql),
        ("0015_merge_registers.sql", PackageResources._015_merge_registers_sql),
        ("0016_merge_cursors.sql", PackageResources._016_merge_cursors_sql),
    ]
}
