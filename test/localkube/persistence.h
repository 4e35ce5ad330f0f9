// Persistence: localkube's optional --data-dir. Every committed change is appended to a
// write-ahead log (DIR/wal) by a background writer (group commit), on top of a snapshot
// (DIR/snapshot) rewritten at start and whenever the log outgrows it. Start reloads the
// snapshot and replays the log: objects exactly as they were (uid, resourceVersion,
// timestamps) and the resourceVersion counter. Watch history is not kept: a watch from an
// older resourceVersion gets 410 and clients relist, as after an etcd compaction.
//
// Durability: WaitWritten(rv) returns once every commit up to rv has been written to the OS
// (the HTTP layer waits for it before answering a write, so an acknowledged API write survives
// a crash of localkube); the log is fsynced at most `fsync_interval` after a write and at
// Close (a clean shutdown loses nothing; a machine crash loses at most the last interval).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kube/base/clock.h"
#include "kube/base/statusor.h"
#include "test/localkube/store.h"

namespace kai::localkube {

struct PersistenceOptions {
  Duration fsync_interval = std::chrono::seconds(1);
  // The log is compacted into a new snapshot when it exceeds max(this, 2 x snapshot size).
  size_t compact_min_bytes = size_t{64} << 20;
};

struct PersistenceStats {
  uint64_t restored_objects = 0;
  uint64_t restored_rv = 0;
  uint64_t snapshots = 0;
  uint64_t wal_records = 0;
  uint64_t wal_bytes = 0;
};

class Persistence final : public CommitSink {
 public:
  // Creates DIR if needed and locks it (one localkube per directory).
  static StatusOr<std::unique_ptr<Persistence>> Open(const std::string& dir, Clock* clock,
                                                     PersistenceOptions options = {});
  ~Persistence() override;

  // Loads the snapshot and the log into `store` (CRDs first, served through `serve_crd` so
  // their resources exist before their objects), then Store::FinishRestore.
  Status Restore(Store* store, const std::function<void(const ObjectPtr&)>& serve_crd);
  // Writes a snapshot of `store`, empties the log and logs every later commit.
  Status Start(Store* store);
  // Blocks until every commit up to `rv` is written to the log (or the writer stopped).
  void WaitWritten(uint64_t rv);
  // Writes what is queued, fsyncs, stops logging.
  Status Close();

  PersistenceStats stats() const;
  const std::string& dir() const { return dir_; }

  void Committed(const GroupResource& storage, const std::string& key, uint64_t rv,
                 const ObjectPtr& now) override;

 private:
  struct Record {
    GroupResource gr;
    std::string key;
    uint64_t rv;
    ObjectPtr obj;  // null: removed
  };
  Persistence(std::string dir, Clock* clock, PersistenceOptions options, int lock_fd);
  void Run();
  Status WriteSnapshot(uint64_t rv, const std::vector<std::pair<GroupResource, ObjectPtr>>& objs);
  Status TruncateLog();
  Status Append(const std::vector<Record>& batch);

  const std::string dir_;
  Clock* clock_;
  PersistenceOptions options_;
  int lock_fd_ = -1;
  int wal_fd_ = -1;
  Store* store_ = nullptr;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Record> pending_;
  uint64_t written_rv_ = 0;
  uint64_t queued_rv_ = 0;
  bool stop_ = false;
  bool running_ = false;
  Status error_;
  PersistenceStats stats_;
  size_t snapshot_bytes_ = 0;
  std::thread thread_;
};

}  // namespace kai::localkube
