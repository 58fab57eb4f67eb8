// The job record's names (pg/service/job.h); its statistics' conversions are
// pg/service/stats_record.h.
#include "pg/service/job.h"

namespace simjoin::pg {

const char* job_kind_name(JobKind kind) {
  switch (kind) {
    case JobKind::Join: return "join";
    case JobKind::NeighbourStats: return "neighbour stats";
    case JobKind::Dbscan: return "dbscan";
    case JobKind::Knn: return "knn join";
  }
  return "unknown";
}

}  // namespace simjoin::pg
