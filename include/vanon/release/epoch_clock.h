// EpochClock decides, for one input partition, which epoch an event belongs
// to, whether it arrived too late, and which epochs may be released.
//
// Time is cut into epochs of event time: epoch e = [e*L, (e+1)*L) ms, and the
// release id of epoch e is e itself (global in time, equal in every
// partition). The partition's watermark is the largest event time seen minus
// the allowed lateness; epoch e closes once the watermark reaches its end.
// An event whose epoch is closed, or whose epoch end the watermark already
// passed, is late.
//
// Wall time only enters through idleness: a partition that has had no event
// for idle_timeout of wall time assumes its event time goes on at wall-clock
// speed from its last event, so its open epochs still close. A partition
// that never had an event has no event time to go on from, and no clock,
// unless it is started without events (StartWithoutEvents).
//
// Pure: every call gets the wall time from the caller. The whole state fits
// in EncodeState() so the service can store it with the offsets.
#ifndef VANON_RELEASE_EPOCH_CLOCK_H_
#define VANON_RELEASE_EPOCH_CLOCK_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "vanon/config.h"

namespace vanon::release {

enum class Arrival { kOnTime, kLate };

class EpochClock {
 public:
  // All three lengths must be > 0 (LoadConfig guarantees it).
  explicit EpochClock(const config::EpochConfig& config);

  // floor(ts / length): negative times fall into negative epochs.
  int64_t EpochOf(int64_t ts_ms) const;
  int64_t EpochStart(int64_t epoch) const { return epoch * length_ms_; }
  int64_t EpochEnd(int64_t epoch) const { return (epoch + 1) * length_ms_; }  // exclusive

  // Classifies an accepted event and, when it is on time, advances the
  // watermark. A late event changes nothing.
  Arrival Observe(int64_t ts_ms, int64_t wall_ms);

  // Moves the watermark by wall time when the partition has been idle for at
  // least idle_timeout. Call it periodically; the watermark never goes back.
  void AdvanceIdle(int64_t wall_ms);

  // The partition was (re)assigned, or the service started, at wall_ms.
  // Time spent down or unassigned is not idleness (the partition's events
  // may be waiting in Kafka, and would all turn late if it were), so the
  // idle timer starts again here.
  void Resume(int64_t wall_ms);

  // For a partition whose epochs must close even if it never receives an
  // event. Call it where Resume is called. A clock that has seen no event
  // (none in state either) starts once idle_timeout of wall time passed from
  // wall_ms without one, as if an event with event time wall_ms had arrived
  // at wall_ms: its event time then follows wall time and its epochs close
  // by idleness (AdvanceIdle). Waiting idle_timeout first keeps a backlog on
  // time: its first event comes well before and starts the clock in event
  // time. An event arriving after the start with an older event time is
  // late, as for any idle partition. A clock already started is unchanged.
  void StartWithoutEvents(int64_t wall_ms);

  // The oldest epoch that may be released now (its end <= watermark), or
  // nullopt. Epochs close in order, including ones without any event, so each
  // partition publishes a summary for every release id after its first event.
  std::optional<int64_t> NextClosable() const;
  // The oldest open epoch when it is not closable yet but the partition's
  // event time has passed its end: only events up to the allowed lateness
  // behind can still join it, so a release computed now is usually final.
  std::optional<int64_t> NextPrecomputable() const;
  // Marks NextClosable() as released. `epoch` must equal it.
  void Close(int64_t epoch);

  // Before the input is read again from an earlier offset (a partition
  // restored from the state changelog): the watermark goes back to the
  // start of the first open epoch, so the re-read events of open epochs
  // are on time again while every closed epoch stays closed (late).
  void RewindToFirstOpen();

  // nullopt until the first on-time event (or the start without events).
  std::optional<int64_t> first_open_epoch() const { return next_open_; }
  int64_t watermark_ms() const { return watermark_; }

  // Versioned fixed-size encoding of the mutable state (not the config).
  std::string EncodeState() const;
  // False (state unchanged) on a wrong size or version.
  bool DecodeState(std::string_view data);

 private:
  void Raise(int64_t watermark) {
    if (watermark > watermark_) watermark_ = watermark;
  }

  int64_t length_ms_;
  int64_t lateness_ms_;
  int64_t idle_timeout_ms_;

  bool seen_event_ = false;
  int64_t max_ts_ = 0;
  int64_t last_event_wall_ = 0;
  int64_t watermark_;
  std::optional<int64_t> next_open_;  // epochs below are closed
  // Set by StartWithoutEvents until the clock starts. Not in the encoded
  // state: after a restart the wait begins again at the next Resume, since
  // time spent down is not idleness.
  std::optional<int64_t> start_wait_since_;
};

}  // namespace vanon::release

#endif  // VANON_RELEASE_EPOCH_CLOCK_H_
