// Join points in dynamic shared memory (pg/service/shared_points.h): a list of this backend's live segments,
// each removed by free_join_points or by a reset callback of the context it was made for.
#include "pg/service/shared_points.h"

extern "C" {
#include "utils/memutils.h"
}

#include <cstring>

#include "engine/types.h"
#include "pg/service/client.h"
#include "pg/settings.h"

namespace simjoin::pg {

namespace {

// Below this a segment costs more (a mapping, a file in /dev/shm) than the copy it saves.
constexpr Size kSharedFromBytes = 1 << 20;

struct SharedPoints {
  dsm_segment* segment;  // nullptr once freed
  double* points;
  SharedPoints* next;
  MemoryContextCallback on_reset;
};

SharedPoints* live = nullptr;  // this backend's segments

void unlink(SharedPoints* entry) {
  for (SharedPoints** at = &live; *at; at = &(*at)->next) {
    if (*at == entry) {
      *at = entry->next;
      return;
    }
  }
}

void release(SharedPoints* entry) {
  if (!entry->segment) return;
  dsm_detach(entry->segment);
  entry->segment = nullptr;
  unlink(entry);
}

void release_on_reset(void* arg) { release(static_cast<SharedPoints*>(arg)); }

SharedPoints* find(const double* points) {
  for (SharedPoints* entry = live; entry; entry = entry->next)
    if (entry->points == points) return entry;
  return nullptr;
}

double* new_segment(MemoryContext context, Size bytes) {
  // The entry lives in `context`, whose reset runs its callback before freeing it.
  auto* entry = static_cast<SharedPoints*>(MemoryContextAllocZero(context, sizeof(SharedPoints)));
  entry->segment = dsm_create(bytes, 0);
  dsm_pin_mapping(entry->segment);  // ours until released, not the resource owner's
  entry->points = static_cast<double*>(dsm_segment_address(entry->segment));
  entry->on_reset.func = release_on_reset;
  entry->on_reset.arg = entry;
  MemoryContextRegisterResetCallback(context, &entry->on_reset);
  entry->next = live;
  live = entry;
  return entry->points;
}

}  // namespace

bool join_points_shared() {
  return static_cast<Device>(device_setting) != Device::Cpu && service_ready(nullptr);
}

double* grow_join_points(MemoryContext context, double* old, Size used_bytes, Size new_bytes,
                         bool shared) {
  const bool in_segment = shared && new_bytes >= kSharedFromBytes;
  if (!in_segment && old && !find(old)) return static_cast<double*>(repalloc_huge(old, new_bytes));
  double* points = in_segment ? new_segment(context, new_bytes)
                              : static_cast<double*>(MemoryContextAllocHuge(context, new_bytes));
  if (old) {
    std::memcpy(points, old, used_bytes);
    free_join_points(old);
  }
  return points;
}

void free_join_points(double* points) {
  if (SharedPoints* entry = find(points)) {
    release(entry);
  } else {
    pfree(points);
  }
}

bool shared_points_segment(const double* points, dsm_handle* handle) {
  const SharedPoints* entry = find(points);
  if (!entry) return false;
  *handle = dsm_segment_handle(entry->segment);
  return true;
}

}  // namespace simjoin::pg
