#include "test/localkube/persistence.h"

#include <errno.h>
#include <fcntl.h>
#include <glog/logging.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <map>

#include "kube/base/file.h"
#include "kube/base/strings.h"

namespace kai::localkube {
namespace {

// File formats (text, one record per line; object JSON is compact, so it has no newline):
//   snapshot:  "LOCALKUBE-SNAPSHOT 1 <rv>\n", then "<resource.group>\t<key>\t<json>\n" per
//              object, then "END <count>\n".
//   wal:       "P <rv> <resource.group> <key>\t<json>\n" (stored) or
//              "D <rv> <resource.group> <key>\n" (removed), in commit order.
constexpr char kSnapshotMagic[] = "LOCALKUBE-SNAPSHOT 1 ";

Status Errno(const std::string& what) { return InternalError(what + ": " + std::strerror(errno)); }

Status MakeDirs(const std::string& dir) {
  std::string cur;
  for (const std::string& part : StrSplit(dir, '/')) {
    cur += part;
    cur += '/';
    if (part.empty()) continue;
    if (::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST) return Errno("mkdir " + cur);
  }
  return Status::OK();
}

Status WriteAll(int fd, std::string_view data, const std::string& what) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return Errno("write " + what);
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::OK();
}

Status SyncDir(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno("open " + dir);
  const int r = ::fsync(fd);
  ::close(fd);
  return r == 0 ? Status::OK() : Errno("fsync " + dir);
}

GroupResource ParseGr(std::string_view s) {
  const size_t dot = s.find('.');
  if (dot == std::string_view::npos) return {"", std::string(s)};
  return {std::string(s.substr(dot + 1)), std::string(s.substr(0, dot))};
}

// Reads `path` if it exists ("" and false otherwise).
StatusOr<bool> ReadIfExists(const std::string& path, std::string* out) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return false;
    return Errno("stat " + path);
  }
  KAI_ASSIGN_OR_RETURN(*out, ReadFile(path));
  return true;
}

}  // namespace

StatusOr<std::unique_ptr<Persistence>> Persistence::Open(const std::string& dir, Clock* clock,
                                                         PersistenceOptions options) {
  if (dir.empty()) return InvalidArgumentError("--data-dir: empty path");
  KAI_RETURN_IF_ERROR(MakeDirs(dir));
  const std::string lock = dir + "/lock";
  const int fd = ::open(lock.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("open " + lock);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return FailedPreconditionError("--data-dir " + dir + " is in use by another localkube");
  }
  return std::unique_ptr<Persistence>(new Persistence(dir, clock, options, fd));
}

Persistence::Persistence(std::string dir, Clock* clock, PersistenceOptions options, int lock_fd)
    : dir_(std::move(dir)), clock_(clock), options_(options), lock_fd_(lock_fd) {}

Persistence::~Persistence() {
  Close().IgnoreError();
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

Status Persistence::Restore(Store* store, const std::function<void(const ObjectPtr&)>& serve_crd) {
  // (resource.group, key) -> JSON, the final state after snapshot and log.
  std::map<std::pair<std::string, std::string>, std::string> objects;
  uint64_t snapshot_rv = 0, max_rv = 0;
  std::string text;
  const std::string snap_path = dir_ + "/snapshot";
  KAI_ASSIGN_OR_RETURN(bool has_snapshot, ReadIfExists(snap_path, &text));
  if (has_snapshot) {
    std::string_view rest = text;
    size_t line_no = 0;
    bool ended = false;
    uint64_t count = 0;
    while (!rest.empty()) {
      const size_t nl = rest.find('\n');
      if (nl == std::string_view::npos) break;
      std::string_view line = rest.substr(0, nl);
      rest.remove_prefix(nl + 1);
      ++line_no;
      const std::string where = snap_path + ":" + std::to_string(line_no);
      if (line_no == 1) {
        if (line.substr(0, sizeof(kSnapshotMagic) - 1) != kSnapshotMagic ||
            !ParseDecimalUint64(line.substr(sizeof(kSnapshotMagic) - 1), &snapshot_rv)) {
          return InvalidArgumentError(where + ": not a localkube snapshot");
        }
        continue;
      }
      if (line.substr(0, 4) == "END ") {
        uint64_t want = 0;
        if (!ParseDecimalUint64(line.substr(4), &want) || want != count) {
          return InvalidArgumentError(where + ": snapshot has " + std::to_string(count) +
                                      " objects, trailer says " + std::string(line.substr(4)));
        }
        ended = true;
        break;
      }
      const size_t t1 = line.find('\t');
      const size_t t2 = t1 == std::string_view::npos ? t1 : line.find('\t', t1 + 1);
      if (t2 == std::string_view::npos) return InvalidArgumentError(where + ": malformed line");
      objects[{std::string(line.substr(0, t1)), std::string(line.substr(t1 + 1, t2 - t1 - 1))}] =
          std::string(line.substr(t2 + 1));
      ++count;
    }
    if (!ended) return InvalidArgumentError(snap_path + ": truncated (no END trailer)");
    max_rv = snapshot_rv;
  }
  text.clear();
  const std::string wal_path = dir_ + "/wal";
  KAI_ASSIGN_OR_RETURN(bool has_wal, ReadIfExists(wal_path, &text));
  if (has_wal) {
    std::string_view rest = text;
    size_t line_no = 0;
    while (!rest.empty()) {
      const size_t nl = rest.find('\n');
      ++line_no;
      const std::string where = wal_path + ":" + std::to_string(line_no);
      if (nl == std::string_view::npos) {
        // A record cut short by a crash: it was never acknowledged.
        LOG(WARNING) << where << ": ignoring an incomplete last record (" << rest.size()
                     << " bytes)";
        break;
      }
      std::string_view line = rest.substr(0, nl);
      rest.remove_prefix(nl + 1);
      if (line.size() < 2 || (line[0] != 'P' && line[0] != 'D') || line[1] != ' ') {
        return InvalidArgumentError(where + ": malformed record");
      }
      const bool put = line[0] == 'P';
      std::string_view head = line.substr(2);
      std::string_view json;
      if (put) {
        const size_t tab = head.find('\t');
        if (tab == std::string_view::npos)
          return InvalidArgumentError(where + ": malformed record");
        json = head.substr(tab + 1);
        head = head.substr(0, tab);
      }
      const std::vector<std::string> f = StrSplit(head, ' ');
      uint64_t rv = 0;
      if (f.size() != 3 || !ParseDecimalUint64(f[0], &rv)) {
        return InvalidArgumentError(where + ": malformed record");
      }
      max_rv = std::max(max_rv, rv);
      if (rv <= snapshot_rv) continue;  // already in the snapshot
      if (put) {
        objects[{f[1], f[2]}] = std::string(json);
      } else {
        objects.erase({f[1], f[2]});
      }
    }
  }
  // CRDs first: serving them creates the tables their objects go to.
  const std::string crd_gr = kCrds.ToString();
  uint64_t restored = 0;
  for (const auto& [k, json] : objects) {
    if (k.first != crd_gr) continue;
    Status s = store->Restore(kCrds, json);
    if (!s.ok())
      return Status(s.code(),
                    dir_ + ": " + k.first + " " + k.second + ": " + std::string(s.message()));
    auto crd =
        store->Get({"apiextensions.k8s.io", "v1", "customresourcedefinitions"}, "", k.second);
    if (crd.ok()) serve_crd(*crd);
    ++restored;
  }
  for (const auto& [k, json] : objects) {
    if (k.first == crd_gr) continue;
    Status s = store->Restore(ParseGr(k.first), json);
    if (!s.ok()) {
      LOG(WARNING) << dir_ << ": skipping " << k.first << " " << k.second << ": " << s.message();
      continue;
    }
    ++restored;
  }
  store->FinishRestore(max_rv);
  std::lock_guard l(mu_);
  stats_.restored_objects = restored;
  stats_.restored_rv = max_rv;
  return Status::OK();
}

Status Persistence::WriteSnapshot(uint64_t rv,
                                  const std::vector<std::pair<GroupResource, ObjectPtr>>& objs) {
  const std::string tmp = dir_ + "/snapshot.tmp";
  const int fd = ::open(tmp.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("open " + tmp);
  std::string buf = kSnapshotMagic + std::to_string(rv) + "\n";
  size_t total = 0;
  Status s;
  for (const auto& [gr, obj] : objs) {
    buf += gr.ToString();
    buf += '\t';
    buf += obj->Key();
    buf += '\t';
    buf += obj->json();
    buf += '\n';
    if (buf.size() >= (size_t{1} << 20)) {
      total += buf.size();
      s = WriteAll(fd, buf, tmp);
      buf.clear();
      if (!s.ok()) break;
    }
  }
  buf += "END " + std::to_string(objs.size()) + "\n";
  total += buf.size();
  if (s.ok()) s = WriteAll(fd, buf, tmp);
  if (s.ok() && ::fsync(fd) != 0) s = Errno("fsync " + tmp);
  ::close(fd);
  if (!s.ok()) return s;
  if (::rename(tmp.c_str(), (dir_ + "/snapshot").c_str()) != 0) return Errno("rename " + tmp);
  KAI_RETURN_IF_ERROR(SyncDir(dir_));
  std::lock_guard l(mu_);
  snapshot_bytes_ = total;
  ++stats_.snapshots;
  return Status::OK();
}

Status Persistence::TruncateLog() {
  if (::ftruncate(wal_fd_, 0) != 0) return Errno("truncate " + dir_ + "/wal");
  if (::fsync(wal_fd_) != 0) return Errno("fsync " + dir_ + "/wal");
  std::lock_guard l(mu_);
  stats_.wal_bytes = 0;
  return Status::OK();
}

Status Persistence::Start(Store* store) {
  {
    std::lock_guard l(mu_);
    if (running_) return Status::OK();
  }
  store_ = store;
  const std::string wal = dir_ + "/wal";
  wal_fd_ = ::open(wal.c_str(), O_CREAT | O_WRONLY | O_APPEND | O_CLOEXEC, 0644);
  if (wal_fd_ < 0) return Errno("open " + wal);
  std::vector<std::pair<GroupResource, ObjectPtr>> objs;
  const uint64_t rv = store->SnapshotAndAttach(this, &objs);
  Status s = WriteSnapshot(rv, objs);
  if (s.ok()) s = TruncateLog();
  if (!s.ok()) {
    store->SnapshotAndAttach(nullptr, nullptr);
    return s;
  }
  std::lock_guard l(mu_);
  written_rv_ = std::max(written_rv_, rv);
  queued_rv_ = std::max(queued_rv_, rv);
  running_ = true;
  stop_ = false;
  thread_ = std::thread([this] { Run(); });
  return Status::OK();
}

void Persistence::Committed(const GroupResource& storage, const std::string& key, uint64_t rv,
                            const ObjectPtr& now) {
  std::lock_guard l(mu_);
  pending_.push_back(Record{storage, key, rv, now});
  queued_rv_ = std::max(queued_rv_, rv);
  cv_.notify_all();
}

Status Persistence::Append(const std::vector<Record>& batch) {
  std::string buf;
  for (const Record& r : batch) {
    buf += r.obj ? "P " : "D ";
    buf += std::to_string(r.rv);
    buf += ' ';
    buf += r.gr.ToString();
    buf += ' ';
    buf += r.key;
    if (r.obj) {
      buf += '\t';
      buf += r.obj->json();
    }
    buf += '\n';
  }
  Status s = WriteAll(wal_fd_, buf, dir_ + "/wal");
  std::lock_guard l(mu_);
  stats_.wal_records += batch.size();
  stats_.wal_bytes += buf.size();
  return s;
}

void Persistence::Run() {
  std::unique_lock l(mu_);
  MonoTime last_sync = clock_->NowMonotonic();
  bool dirty = false;
  auto fsync = [&]() {
    l.unlock();
    const int r = ::fdatasync(wal_fd_);
    l.lock();
    if (r != 0 && error_.ok()) error_ = Errno("fsync " + dir_ + "/wal");
    dirty = false;
    last_sync = clock_->NowMonotonic();
  };
  for (;;) {
    if (pending_.empty()) {
      if (stop_) break;
      if (dirty) {
        const MonoTime due = last_sync + options_.fsync_interval;
        if (clock_->NowMonotonic() >= due) {
          fsync();
        } else {
          clock_->WaitUntil(cv_, l, due);
        }
      } else {
        cv_.wait(l);
      }
      continue;
    }
    std::vector<Record> batch;
    batch.swap(pending_);
    l.unlock();
    Status s = Append(batch);
    l.lock();
    if (!s.ok() && error_.ok()) {
      error_ = s;
      LOG(ERROR) << "localkube persistence: " << s;
    }
    written_rv_ = std::max(written_rv_, batch.back().rv);
    dirty = true;
    cv_.notify_all();
    if (clock_->NowMonotonic() >= last_sync + options_.fsync_interval) fsync();
    // Compaction: a new snapshot replaces the log once the log outgrows it.
    if (stats_.wal_bytes > std::max(options_.compact_min_bytes, 2 * snapshot_bytes_)) {
      l.unlock();
      std::vector<std::pair<GroupResource, ObjectPtr>> objs;
      const uint64_t rv = store_->SnapshotObjects(&objs);
      Status cs = WriteSnapshot(rv, objs);
      if (cs.ok()) cs = TruncateLog();
      l.lock();
      if (!cs.ok() && error_.ok()) {
        error_ = cs;
        LOG(ERROR) << "localkube persistence: " << cs;
      }
    }
  }
  if (dirty) fsync();
}

void Persistence::WaitWritten(uint64_t rv) {
  std::unique_lock l(mu_);
  cv_.wait(l, [&] { return !running_ || stop_ || written_rv_ >= std::min(rv, queued_rv_); });
}

Status Persistence::Close() {
  {
    std::lock_guard l(mu_);
    if (!running_) return error_;
  }
  if (store_ != nullptr) store_->SnapshotAndAttach(nullptr, nullptr);
  {
    std::lock_guard l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard l(mu_);
  running_ = false;
  cv_.notify_all();
  if (wal_fd_ >= 0) {
    ::close(wal_fd_);
    wal_fd_ = -1;
  }
  return error_;
}

PersistenceStats Persistence::stats() const {
  std::lock_guard l(mu_);
  return stats_;
}

}  // namespace kai::localkube
