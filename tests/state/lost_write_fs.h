// A RocksDB file system that can simulate a machine crash: what was
// appended to a write-ahead log but never synced is lost, as it is when the
// OS dies with the data still in its page cache.
//
// Crash() makes every later append and sync a no-op (the "machine" is dead:
// the store's own shutdown must not rescue anything); after the store is
// closed, LoseUnsyncedWrites() cuts each WAL back to its last synced size.
// Only WAL files (*.log) are modelled: RocksDB syncs its other files itself.
#ifndef VANON_TESTS_STATE_LOST_WRITE_FS_H_
#define VANON_TESTS_STATE_LOST_WRITE_FS_H_

#include <rocksdb/file_system.h>
#include <unistd.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace vanon::testing {

class LostWriteFs : public rocksdb::FileSystemWrapper {
 public:
  LostWriteFs() : FileSystemWrapper(rocksdb::FileSystem::Default()) {}
  const char* Name() const override { return "LostWriteFs"; }

  void Crash() {
    std::lock_guard<std::mutex> l(state_->mu);
    state_->crashed = true;
  }

  // Returns how many bytes were cut off over all WALs.
  uint64_t LoseUnsyncedWrites() {
    std::lock_guard<std::mutex> l(state_->mu);
    uint64_t lost = 0;
    for (const auto& [path, f] : state_->files) {
      if (f.written <= f.synced) continue;
      if (::truncate(path.c_str(), static_cast<off_t>(f.synced)) == 0) lost += f.written - f.synced;
    }
    return lost;
  }

  rocksdb::IOStatus NewWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                    std::unique_ptr<rocksdb::FSWritableFile>* r,
                                    rocksdb::IODebugContext* dbg) override {
    rocksdb::IOStatus s = target()->NewWritableFile(f, o, r, dbg);
    if (s.ok() && IsWal(f)) Track(f, 0, r);
    return s;
  }

  rocksdb::IOStatus ReopenWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                       std::unique_ptr<rocksdb::FSWritableFile>* r,
                                       rocksdb::IODebugContext* dbg) override {
    uint64_t size = 0;
    target()->GetFileSize(f, rocksdb::IOOptions(), &size, dbg);
    rocksdb::IOStatus s = target()->ReopenWritableFile(f, o, r, dbg);
    if (s.ok() && IsWal(f)) Track(f, size, r);
    return s;
  }

 private:
  struct FileState {
    uint64_t written = 0;
    uint64_t synced = 0;
  };
  struct State {
    std::mutex mu;
    bool crashed = false;
    std::map<std::string, FileState> files;
  };

  class File : public rocksdb::FSWritableFileOwnerWrapper {
   public:
    File(std::unique_ptr<rocksdb::FSWritableFile> t, std::shared_ptr<State> state, std::string path)
        : FSWritableFileOwnerWrapper(std::move(t)), state_(std::move(state)), path_(std::move(path)) {}

    rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& o,
                             rocksdb::IODebugContext* dbg) override {
      if (Dead()) return rocksdb::IOStatus::OK();
      rocksdb::IOStatus s = target()->Append(data, o, dbg);
      if (s.ok()) Add(data.size());
      return s;
    }
    rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& o,
                             const rocksdb::DataVerificationInfo& v, rocksdb::IODebugContext* dbg) override {
      if (Dead()) return rocksdb::IOStatus::OK();
      rocksdb::IOStatus s = target()->Append(data, o, v, dbg);
      if (s.ok()) Add(data.size());
      return s;
    }
    rocksdb::IOStatus Sync(const rocksdb::IOOptions& o, rocksdb::IODebugContext* dbg) override {
      if (Dead()) return rocksdb::IOStatus::OK();
      rocksdb::IOStatus s = target()->Sync(o, dbg);
      if (s.ok()) MarkSynced();
      return s;
    }
    rocksdb::IOStatus Fsync(const rocksdb::IOOptions& o, rocksdb::IODebugContext* dbg) override {
      if (Dead()) return rocksdb::IOStatus::OK();
      rocksdb::IOStatus s = target()->Fsync(o, dbg);
      if (s.ok()) MarkSynced();
      return s;
    }
    // A range sync is not a durability point for the WAL: ignored.
    rocksdb::IOStatus RangeSync(uint64_t, uint64_t, const rocksdb::IOOptions&, rocksdb::IODebugContext*) override {
      return rocksdb::IOStatus::OK();
    }
    bool use_direct_io() const override { return false; }

   private:
    bool Dead() {
      std::lock_guard<std::mutex> l(state_->mu);
      return state_->crashed;
    }
    void Add(uint64_t n) {
      std::lock_guard<std::mutex> l(state_->mu);
      state_->files[path_].written += n;
    }
    void MarkSynced() {
      std::lock_guard<std::mutex> l(state_->mu);
      FileState& f = state_->files[path_];
      f.synced = f.written;
    }
    std::shared_ptr<State> state_;
    std::string path_;
  };

  static bool IsWal(const std::string& f) { return f.size() > 4 && f.compare(f.size() - 4, 4, ".log") == 0; }

  void Track(const std::string& f, uint64_t size, std::unique_ptr<rocksdb::FSWritableFile>* r) {
    {
      std::lock_guard<std::mutex> l(state_->mu);
      state_->files[f] = FileState{size, size};
    }
    *r = std::make_unique<File>(std::move(*r), state_, f);
  }

  std::shared_ptr<State> state_ = std::make_shared<State>();
};

}  // namespace vanon::testing

#endif  // VANON_TESTS_STATE_LOST_WRITE_FS_H_
