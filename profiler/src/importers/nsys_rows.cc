#include "nsys_rows.h"

#include <array>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "braid/trace_import.h"
#include "rank_assembly.h"

namespace braid::importers {
namespace {

constexpr std::string_view kKernelTable = "CUPTI_ACTIVITY_KIND_KERNEL";

// "t.col" when the table has the column, else "NULL".
std::string Col(const std::set<std::string>& columns, const char* table_alias, const std::string& name) {
  return columns.contains(name) ? std::string(table_alias) + "." + name : "NULL";
}

std::string_view MemKindName(int64_t k) {
  static constexpr std::array<std::string_view, 8> kMem = {"Pageable", "Pinned",        "Device",         "Array",
                                                           "Managed",  "Device Static", "Managed Static", "Unknown"};
  return k >= 0 && k < int64_t(kMem.size()) ? kMem[size_t(k)] : kMem.back();
}

// Named as Kineto names them: "Memcpy HtoD (Pinned -> Device)".
std::string MemcpyName(int64_t copy_kind, int64_t src_kind, int64_t dst_kind, bool have_kinds) {
  static constexpr std::array<std::string_view, 14> kCopy = {
      "Unknown", "HtoD", "DtoH", "HtoA", "AtoH",           "AtoA",           "AtoD",
      "DtoA",    "DtoD", "HtoH", "PtoP", "HtoD (unified)", "DtoH (unified)", "DtoD (unified)"};
  std::string name = "Memcpy ";
  name += copy_kind >= 0 && copy_kind < int64_t(kCopy.size()) ? kCopy[size_t(copy_kind)] : kCopy[0];
  if (have_kinds) name += " (" + std::string(MemKindName(src_kind)) + " -> " + std::string(MemKindName(dst_kind)) + ")";
  return name;
}

// "Memset (Device)"
std::string MemsetName(int64_t mem_kind) {
  return mem_kind < 0 ? "Memset" : "Memset (" + std::string(MemKindName(mem_kind)) + ")";
}

class RowReader {
 public:
  RowReader(const SqliteDb& db, NsysRows* out) : db_(db), out_(out) {}

  Status ReadKernels();
  Status ReadCopies(std::string_view table, NsysGpuKind kind);
  Status ReadRuntime();
  Status ReadNvtx();
  Status ReadTargetInfo();

 private:
  // Reads start, end, deviceId, streamId, correlationId, globalPid (columns
  // 0..5) into `row`; checks the time and device ranges.
  Status ReadGpuCommon(const SqliteStmt& s, std::string_view table, NsysGpuRow* row) const;
  Status CheckTimes(int64_t start, int64_t end, std::string_view table) const;
  // Each (column, name) of the current row holds an integer: a text or NULL
  // time would read as 0.
  Status RequireInts(const SqliteStmt& s, std::string_view table,
                     std::initializer_list<std::pair<int, const char*>> columns) const;
  // The StringIds rows whose ids `ids_sql` (a SELECT of one column)
  // gives, each read once and kept as an event keeps a name (KeptName): a
  // 20 MB name that 400 rows use is read once, not joined into each row
  // (8 GB of copying, 3.9 s).
  Result<std::map<int64_t, std::string>> KeptStrings(const std::string& ids_sql) const;

  const SqliteDb& db_;
  NsysRows* out_;
};

Status RowReader::CheckTimes(int64_t start, int64_t end, std::string_view table) const {
  if (!NsInRange(start) || !NsInRange(end)) return db_.Fail(std::string(table) + " has a timestamp out of range");
  return Status::Ok();
}

Status RowReader::RequireInts(const SqliteStmt& s, std::string_view table,
                              std::initializer_list<std::pair<int, const char*>> columns) const {
  for (auto [col, name] : columns) {
    if (!s.IsInt(col)) {
      return db_.Fail(std::string(table) + " has a " + name + " that is " +
                      (s.IsNull(col) ? "NULL" : "not an integer") +
                      " (an Nsight Systems export stores integers there)");
    }
  }
  return Status::Ok();
}

Status RowReader::ReadGpuCommon(const SqliteStmt& s, std::string_view table, NsysGpuRow* row) const {
  BRAID_RETURN_IF_ERROR(RequireInts(s, table, {{0, "start"}, {1, "end"}, {2, "deviceId"}, {3, "streamId"}}));
  row->start = s.Int(0);
  row->end = s.Int(1);
  BRAID_RETURN_IF_ERROR(CheckTimes(row->start, row->end, table));
  const int64_t device = s.Int(2);
  if (device < 0 || device >= kMaxImportRanks) {
    return db_.Fail(std::string(table) + " has a deviceId out of range (0 to " + std::to_string(kMaxImportRanks - 1) +
                    ")");
  }
  row->device = static_cast<int>(device);
  row->stream = s.Int(3);
  row->correlation = s.IsNull(4) ? -1 : s.Int(4);
  row->process = s.IsNull(5) ? -1 : (s.Int(5) >> 24);
  return Status::Ok();
}

Result<std::map<int64_t, std::string>> RowReader::KeptStrings(const std::string& ids_sql) const {
  std::map<int64_t, std::string> kept;
  BRAID_ASSIGN_OR_RETURN(
      SqliteStmt s,
      SqliteStmt::Prepare(db_, "SELECT id, value FROM StringIds WHERE value IS NOT NULL AND id IN (" + ids_sql + ")"));
  while (s.Next()) {
    if (s.IsInt(0)) kept.emplace(s.Int(0), KeptName(s.Text(1)));
  }
  BRAID_RETURN_IF_ERROR(s.status());
  return kept;
}

namespace {

// The kept string of the id in column `col` of the current row, if any.
const std::string* StringOf(const SqliteStmt& s, int col, const std::map<int64_t, std::string>& kept) {
  if (!s.IsInt(col)) return nullptr;
  const auto it = kept.find(s.Int(col));
  return it == kept.end() ? nullptr : &it->second;
}

}  // namespace

Status RowReader::ReadKernels() {
  BRAID_ASSIGN_OR_RETURN(std::set<std::string> cols, db_.Columns(kKernelTable));
  for (const char* need : {"start", "end", "deviceId", "streamId"}) {
    if (!cols.contains(need)) {
      return db_.Fail("not an Nsight Systems export: CUPTI_ACTIVITY_KIND_KERNEL has no " + std::string(need) +
                      " column");
    }
  }
  if (!cols.contains("demangledName") && !cols.contains("shortName")) {
    return db_.Fail("not an Nsight Systems export: CUPTI_ACTIVITY_KIND_KERNEL has no kernel name column");
  }
  const std::string demangled = Col(cols, "k", "demangledName"), short_name = Col(cols, "k", "shortName");
  BRAID_ASSIGN_OR_RETURN(
      auto names, KeptStrings("SELECT " + demangled + " FROM CUPTI_ACTIVITY_KIND_KERNEL k UNION SELECT " + short_name +
                              " FROM CUPTI_ACTIVITY_KIND_KERNEL k"));
  const std::string sql = "SELECT k.start, k.end, k.deviceId, k.streamId, " + Col(cols, "k", "correlationId") + ", " +
                          Col(cols, "k", "globalPid") + ", " + demangled + ", " + short_name +
                          " FROM CUPTI_ACTIVITY_KIND_KERNEL k";
  BRAID_ASSIGN_OR_RETURN(SqliteStmt s, SqliteStmt::Prepare(db_, sql));
  while (s.Next()) {
    NsysGpuRow row;
    BRAID_RETURN_IF_ERROR(ReadGpuCommon(s, kKernelTable, &row));
    // The demangled name, else the short one (as COALESCE over both joins).
    const std::string* name = StringOf(s, 6, names);
    if (name == nullptr) name = StringOf(s, 7, names);
    if (name != nullptr) row.name = *name;
    out_->gpu.push_back(std::move(row));
  }
  return s.status();
}

Status RowReader::ReadCopies(std::string_view table, NsysGpuKind kind) {
  BRAID_ASSIGN_OR_RETURN(std::set<std::string> cols, db_.Columns(table));
  if (cols.empty()) return Status::Ok();  // optional table
  for (const char* need : {"start", "end", "deviceId", "streamId"}) {
    if (!cols.contains(need)) return Status::Ok();  // not the table we know: skip it
  }
  const bool memcpy = kind == NsysGpuKind::kMemcpy;
  const bool have_kinds = memcpy && cols.contains("srcKind") && cols.contains("dstKind");
  const std::string sql = "SELECT t.start, t.end, t.deviceId, t.streamId, " + Col(cols, "t", "correlationId") + ", " +
                          Col(cols, "t", "globalPid") + ", " + Col(cols, "t", "bytes") + ", " +
                          (memcpy ? Col(cols, "t", "copyKind") : Col(cols, "t", "memKind")) + ", " +
                          Col(cols, "t", "srcKind") + ", " + Col(cols, "t", "dstKind") + " FROM \"" +
                          std::string(table) + "\" t";
  BRAID_ASSIGN_OR_RETURN(SqliteStmt s, SqliteStmt::Prepare(db_, sql));
  while (s.Next()) {
    NsysGpuRow row;
    row.kind = kind;
    BRAID_RETURN_IF_ERROR(ReadGpuCommon(s, table, &row));
    row.bytes = s.IsNull(6) ? 0 : s.Int(6);
    if (row.bytes < 0) return db_.Fail(std::string(table) + " has a negative byte count");
    const int64_t k = s.IsNull(7) ? -1 : s.Int(7);
    if (memcpy) {
      row.name = MemcpyName(k, s.Int(8), s.Int(9), have_kinds);
    } else {
      row.name = MemsetName(k);
    }
    out_->gpu.push_back(std::move(row));
  }
  return s.status();
}

Status RowReader::ReadRuntime() {
  BRAID_ASSIGN_OR_RETURN(std::set<std::string> cols, db_.Columns("CUPTI_ACTIVITY_KIND_RUNTIME"));
  if (!cols.contains("start") || !cols.contains("end")) return Status::Ok();
  const std::string name_id = Col(cols, "r", "nameId");
  BRAID_ASSIGN_OR_RETURN(auto names, KeptStrings("SELECT " + name_id + " FROM CUPTI_ACTIVITY_KIND_RUNTIME r"));
  const std::string sql = "SELECT r.start, r.end, " + Col(cols, "r", "correlationId") + ", " +
                          Col(cols, "r", "globalTid") + ", " + name_id + " FROM CUPTI_ACTIVITY_KIND_RUNTIME r";
  BRAID_ASSIGN_OR_RETURN(SqliteStmt s, SqliteStmt::Prepare(db_, sql));
  while (s.Next()) {
    BRAID_RETURN_IF_ERROR(RequireInts(s, "CUPTI_ACTIVITY_KIND_RUNTIME", {{0, "start"}, {1, "end"}}));
    const std::string* name = StringOf(s, 4, names);
    NsysCpuRow row{s.Int(0), s.Int(1), s.IsNull(2) ? -1 : s.Int(2), s.IsNull(3) ? -1 : (s.Int(3) >> 24),
                   name != nullptr ? *name : std::string()};
    BRAID_RETURN_IF_ERROR(CheckTimes(row.start, row.end, "CUPTI_ACTIVITY_KIND_RUNTIME"));
    out_->runtime.push_back(std::move(row));
  }
  return s.status();
}

// Push/pop and start/end ranges (NvtxPushPopRange 59, NvtxStartEndRange 60,
// and their NVTXT forms 70, 71); marks and registrations have no end.
Status RowReader::ReadNvtx() {
  BRAID_ASSIGN_OR_RETURN(std::set<std::string> cols, db_.Columns("NVTX_EVENTS"));
  if (!cols.contains("start") || !cols.contains("end")) return Status::Ok();
  const std::string text_id = Col(cols, "e", "textId");
  BRAID_ASSIGN_OR_RETURN(auto names, KeptStrings("SELECT " + text_id + " FROM NVTX_EVENTS e"));
  std::string sql = "SELECT e.start, e.end, " + Col(cols, "e", "text") + ", " + Col(cols, "e", "globalTid") + ", " +
                    text_id + " FROM NVTX_EVENTS e WHERE e.end IS NOT NULL";
  if (cols.contains("eventType")) sql += " AND e.eventType IN (59, 60, 70, 71)";
  BRAID_ASSIGN_OR_RETURN(SqliteStmt s, SqliteStmt::Prepare(db_, sql));
  while (s.Next()) {
    BRAID_RETURN_IF_ERROR(RequireInts(s, "NVTX_EVENTS", {{0, "start"}, {1, "end"}}));
    // The row's own text, else the string its textId names (as COALESCE).
    std::string name;
    if (!s.IsNull(2)) {
      name = KeptName(s.Text(2));
    } else if (const std::string* named = StringOf(s, 4, names)) {
      name = *named;
    }
    NsysCpuRow row{s.Int(0), s.Int(1), -1, s.IsNull(3) ? -1 : (s.Int(3) >> 24), std::move(name)};
    BRAID_RETURN_IF_ERROR(CheckTimes(row.start, row.end, "NVTX_EVENTS"));
    out_->nvtx.push_back(std::move(row));
  }
  return s.status();
}

Status RowReader::ReadTargetInfo() {
  BRAID_ASSIGN_OR_RETURN(std::set<std::string> gpu, db_.Columns("TARGET_INFO_GPU"));
  if (gpu.contains("id") && gpu.contains("name")) {
    BRAID_ASSIGN_OR_RETURN(SqliteStmt s,
                           SqliteStmt::Prepare(db_, "SELECT id, name FROM TARGET_INFO_GPU WHERE name IS NOT NULL"));
    while (s.Next()) {
      const int64_t id = s.Int(0);
      if (id >= 0 && id <= (1 << 24)) out_->gpu_names.emplace(static_cast<int>(id), KeptName(s.Text(1)));
    }
    BRAID_RETURN_IF_ERROR(s.status());
  }
  BRAID_ASSIGN_OR_RETURN(std::set<std::string> streams, db_.Columns("TARGET_INFO_CUDA_STREAM"));
  if (streams.contains("streamId") && streams.contains("processId")) {
    const std::string sql = "SELECT t.streamId, t.processId, " + Col(streams, "t", "priority") + ", " +
                            Col(streams, "t", "flag") + " FROM TARGET_INFO_CUDA_STREAM t";
    BRAID_ASSIGN_OR_RETURN(SqliteStmt s, SqliteStmt::Prepare(db_, sql));
    while (s.Next()) {
      // CUPTI stores the priority as an unsigned 32-bit value.
      const auto priority = static_cast<int32_t>(static_cast<uint32_t>(s.Int(2)));
      out_->stream_info.emplace(std::make_pair(s.Int(1), s.Int(0)),
                                NsysStreamInfo{priority, static_cast<int>(s.Int(3) & 0xFF)});
    }
    BRAID_RETURN_IF_ERROR(s.status());
  }
  return Status::Ok();
}

}  // namespace

Status ReadNsysRows(const SqliteDb& db, NsysRows* out) {
  for (std::string_view name :
       {kKernelTable, std::string_view("StringIds"), std::string_view("CUPTI_ACTIVITY_KIND_MEMCPY"),
        std::string_view("CUPTI_ACTIVITY_KIND_MEMSET"), std::string_view("CUPTI_ACTIVITY_KIND_RUNTIME"),
        std::string_view("NVTX_EVENTS"), std::string_view("TARGET_INFO_GPU"),
        std::string_view("TARGET_INFO_CUDA_STREAM")}) {
    BRAID_RETURN_IF_ERROR(db.CheckNotView(name));
  }
  if (!db.HasTable(kKernelTable)) {
    return db.Fail("not an Nsight Systems export: no CUPTI_ACTIVITY_KIND_KERNEL table");
  }
  if (!db.HasTable("StringIds")) return db.Fail("not an Nsight Systems export: no StringIds table");
  RowReader reader(db, out);
  BRAID_RETURN_IF_ERROR(reader.ReadKernels());
  BRAID_RETURN_IF_ERROR(reader.ReadCopies("CUPTI_ACTIVITY_KIND_MEMCPY", NsysGpuKind::kMemcpy));
  BRAID_RETURN_IF_ERROR(reader.ReadCopies("CUPTI_ACTIVITY_KIND_MEMSET", NsysGpuKind::kMemset));
  BRAID_RETURN_IF_ERROR(reader.ReadRuntime());
  BRAID_RETURN_IF_ERROR(reader.ReadNvtx());
  return reader.ReadTargetInfo();
}

}  // namespace braid::importers
