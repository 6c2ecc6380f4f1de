// `kcat -C | kcat -P`: the cheapest possible topic-to-topic pass-through,
// the yardstick vanon's end-to-end rate is compared against. Keys travel
// with values (tab-separated: VINs and the generator's JSON hold no tabs or
// newlines), so the output is partitioned as the input was.
#ifndef VANON_LOADTEST_RELEASE_KCAT_PIPE_H_
#define VANON_LOADTEST_RELEASE_KCAT_PIPE_H_

#include <string>
#include <sys/types.h>

namespace vanon::loadtest {

class KcatPipe {
 public:
  // Starts the pipeline in its own process group. Throws if fork fails.
  KcatPipe(const std::string& bootstrap, const std::string& from_topic, const std::string& to_topic);
  ~KcatPipe();  // Stop()
  KcatPipe(const KcatPipe&) = delete;
  KcatPipe& operator=(const KcatPipe&) = delete;

  // Terminates both kcat processes and reaps the shell. Idempotent.
  void Stop();
  // True while the pipeline's shell has not exited.
  bool Running();
  // The process group of the shell and both kcat processes.
  pid_t pgid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

}  // namespace vanon::loadtest

#endif  // VANON_LOADTEST_RELEASE_KCAT_PIPE_H_
