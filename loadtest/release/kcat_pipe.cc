#include "kcat_pipe.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>

namespace vanon::loadtest {

KcatPipe::KcatPipe(const std::string& bootstrap, const std::string& from_topic, const std::string& to_topic) {
  // Same batching knobs as the paced producer, so the comparison is about
  // the work in between rather than about client tuning.
  const std::string cmd = "kcat -C -q -b " + bootstrap + " -t " + from_topic +
                          " -o beginning -K '\t' -X fetch.max.bytes=52428800 | kcat -P -b " + bootstrap + " -t " +
                          to_topic + " -K '\t' -X linger.ms=20 -X batch.num.messages=10000";
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("kcat pipe: fork failed");
  if (pid_ == 0) {
    setpgid(0, 0);
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(pid_, pid_);  // also here, so Stop() cannot race the child's own call
}

KcatPipe::~KcatPipe() { Stop(); }

bool KcatPipe::Running() {
  if (pid_ < 0) return false;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) {
    pid_ = -1;
    return false;
  }
  return true;
}

void KcatPipe::Stop() {
  if (pid_ < 0) return;
  // SIGKILL, not SIGTERM: kcat flushes on SIGTERM and would outlive the shell,
  // then complain once the in-process cluster is gone. Its output has been
  // counted by the time Stop() is called.
  kill(-pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

}  // namespace vanon::loadtest
