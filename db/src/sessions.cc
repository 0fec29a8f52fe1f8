// Tuning sessions and trials: the tuner's log of what it tried.
#include <nlohmann/json.hpp>

#include "braid/store.h"
#include "statement.h"
#include "trial_rows.h"

namespace braid {
namespace {

constexpr const char* kSessionColumns =
    "SELECT id, created_at, status, workload_key, topology, backend, strategy, budget, options_json"
    " FROM tuning_sessions";

StoredSession ReadSession(const db::Statement& st) {
  StoredSession s;
  s.id = st.Int(0);
  s.created_at = st.Text(1);
  s.status = st.Text(2);
  s.info.workload_key = st.Text(3);
  s.info.topology = st.Text(4);
  s.info.backend = st.Text(5);
  s.info.strategy = st.Text(6);
  s.info.budget = int(st.Int(7));
  s.info.options_json = st.Text(8);
  return s;
}

Status CheckStatusText(const std::string& status) {
  if (status.empty()) return Status::Invalid("a session or trial status must not be empty");
  return Status::Ok();
}

}  // namespace

Result<int64_t> Store::CreateSession(const SessionInfo& info) {
  BRAID_RETURN_IF_ERROR(CheckWritable());
  BRAID_ASSIGN_OR_RETURN(
      db::Statement st,
      db::Statement::Prepare(
          db_,
          "INSERT INTO tuning_sessions (workload_key, topology, backend, strategy, budget, status, options_json)"
          " VALUES (?1, ?2, ?3, ?4, ?5, 'running', ?6)"));
  st.BindText(1, info.workload_key)
      .BindText(2, info.topology)
      .BindText(3, info.backend)
      .BindText(4, info.strategy)
      .BindInt(5, info.budget)
      .BindText(6, info.options_json.empty() ? "{}" : info.options_json);
  BRAID_RETURN_IF_ERROR(db::WithContext(st.Run(), "creating a tuning session in " + path_));
  return sqlite3_last_insert_rowid(db_);
}

Status Store::SetSessionStatus(int64_t session, const std::string& status) {
  BRAID_RETURN_IF_ERROR(CheckWritable());
  BRAID_RETURN_IF_ERROR(CheckStatusText(status));
  BRAID_ASSIGN_OR_RETURN(db::Statement st,
                         db::Statement::Prepare(db_, "UPDATE tuning_sessions SET status = ?1 WHERE id = ?2"));
  BRAID_RETURN_IF_ERROR(st.BindText(1, status).BindInt(2, session).Run());
  if (sqlite3_changes(db_) == 0) {
    return Status::NotFound("no tuning session " + std::to_string(session) + " in " + path_);
  }
  return Status::Ok();
}

Result<StoredSession> Store::GetSession(int64_t id) const {
  BRAID_ASSIGN_OR_RETURN(db::Statement st,
                         db::Statement::Prepare(db_, std::string(kSessionColumns) + " WHERE id = ?1"));
  BRAID_ASSIGN_OR_RETURN(bool row, st.BindInt(1, id).Step());
  if (!row) return Status::NotFound("no tuning session " + std::to_string(id) + " in " + path_);
  return ReadSession(st);
}

Result<std::vector<StoredSession>> Store::ListSessions() const {
  BRAID_ASSIGN_OR_RETURN(db::Statement st, db::Statement::Prepare(db_, std::string(kSessionColumns) + " ORDER BY id"));
  std::vector<StoredSession> sessions;
  for (;;) {
    BRAID_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    sessions.push_back(ReadSession(st));
  }
  return sessions;
}

Result<int64_t> Store::AddTrial(int64_t session, const TrialInfo& trial) {
  BRAID_RETURN_IF_ERROR(CheckWritable());
  BRAID_RETURN_IF_ERROR(CheckStatusText(trial.status));
  // Name the missing parent instead of SQLite's "FOREIGN KEY constraint failed".
  BRAID_RETURN_IF_ERROR(GetSession(session).status());
  if (trial.run) BRAID_RETURN_IF_ERROR(CheckRunExists(*trial.run));
  return db::InsertTrialRow(db_, session, trial, path_);
}

Result<std::vector<StoredTrial>> Store::ListTrials(int64_t session) const {
  BRAID_RETURN_IF_ERROR(GetSession(session).status());
  BRAID_ASSIGN_OR_RETURN(
      db::Statement st, db::Statement::Prepare(
                            db_,
                            "SELECT id, session, created_at, run, config_json, status, time_ns, trial_key, samples_json"
                            " FROM trials"
                            " WHERE session = ?1 ORDER BY id"));
  st.BindInt(1, session);
  std::vector<StoredTrial> trials;
  for (;;) {
    BRAID_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    StoredTrial& t = trials.emplace_back();
    t.id = st.Int(0);
    t.session = st.Int(1);
    t.created_at = st.Text(2);
    t.trial.run = st.OptionalInt(3);
    t.trial.config_json = st.Text(4);
    t.trial.status = st.Text(5);
    t.trial.time_ns = st.OptionalInt(6);
    t.trial.key = st.IsNull(7) ? std::string() : st.Text(7);
    t.trial.samples_json = st.Text(8);
  }
  return trials;
}

namespace db {

Result<int64_t> InsertTrialRow(sqlite3* db, int64_t session, const TrialInfo& trial, const std::string& path) {
  if (trial.status.empty()) return Status::Invalid("a session or trial status must not be empty");
  if (!trial.samples_json.empty() && !nlohmann::json::accept(trial.samples_json)) {
    return Status::Invalid("TrialInfo.samples_json is not valid JSON: " + trial.samples_json.substr(0, 80));
  }
  if (!trial.key.empty()) {
    BRAID_ASSIGN_OR_RETURN(Statement dup,
                           Statement::Prepare(db, "SELECT 1 FROM trials WHERE session = ?1 AND trial_key = ?2"));
    BRAID_ASSIGN_OR_RETURN(bool found, dup.BindInt(1, session).BindText(2, trial.key).Step());
    if (found) {
      return Status::Invalid("trial '" + trial.key + "' is already recorded in tuning session " +
                             std::to_string(session) + " of " + path);
    }
  }
  BRAID_ASSIGN_OR_RETURN(
      Statement st,
      Statement::Prepare(db,
                         "INSERT INTO trials (session, run, config_json, status, time_ns, trial_key, samples_json)"
                         " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"));
  if (trial.key.empty()) {
    st.BindNull(6);
  } else {
    st.BindText(6, trial.key);
  }
  st.BindInt(1, session)
      .BindOptional(2, trial.run)
      .BindText(3, trial.config_json.empty() ? "{}" : trial.config_json)
      .BindText(4, trial.status)
      .BindOptional(5, trial.time_ns)
      .BindText(7, trial.samples_json.empty() ? "[]" : trial.samples_json);
  BRAID_RETURN_IF_ERROR(WithContext(st.Run(), "adding a trial to " + path));
  return sqlite3_last_insert_rowid(db);
}

}  // namespace db
}  // namespace braid
