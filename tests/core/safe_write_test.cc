// Safe writes: atomic replacement of regular files only, symlinks followed,
// non-regular targets refused, and read-merge-write under a lock that
// concurrent processes take in turn.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "braid/safe_write.h"
#include "temp_dir.h"

namespace braid {
namespace {

namespace fs = std::filesystem;

class SafeWrite : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) const { return tmp_.Path(name); }
  static std::string Read(const std::string& path) { return testing_files::FileBytes(path); }
  size_t Entries() const {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++n;
    return n;
  }
  testing_files::TempDir tmp_;
  const fs::path& dir_ = tmp_.dir();
};

TEST_F(SafeWrite, CreatesAndReplacesARegularFileLeavingNoTemporary) {
  const std::string p = Path("out.json");
  ASSERT_TRUE(WriteFileAtomically(p, "first").ok());
  EXPECT_EQ(Read(p), "first");
  ASSERT_EQ(::chmod(p.c_str(), 0640), 0);
  Status s = WriteFileAtomically(p, "second, longer");
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(Read(p), "second, longer");
  EXPECT_EQ(fs::status(p).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_EQ(Entries(), 1u);
}

TEST_F(SafeWrite, FollowsASymlinkAndWritesItsTarget) {
  const std::string target = Path("real.json");
  std::ofstream(target) << "old";
  fs::create_directory(dir_ / "links");
  fs::create_symlink("../real.json", dir_ / "links" / "link.json");  // relative to the link's folder
  const std::string link = Path("links/link.json");
  Status s = WriteFileAtomically(link, "new");
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(fs::is_symlink(link));  // the link is still a link
  EXPECT_EQ(Read(target), "new");
  auto resolved = ResolveWriteTarget(link);
  ASSERT_TRUE(resolved.ok());
  EXPECT_TRUE(fs::equivalent(*resolved, target));
}

TEST_F(SafeWrite, ADanglingSymlinkCreatesItsTarget) {
  fs::create_symlink("made.json", dir_ / "dangling.json");
  ASSERT_TRUE(WriteFileAtomically(Path("dangling.json"), "x").ok());
  EXPECT_EQ(Read(Path("made.json")), "x");
  EXPECT_TRUE(fs::is_symlink(Path("dangling.json")));
}

TEST_F(SafeWrite, RefusesDirectoriesFifosAndDevicesAndTouchesNothing) {
  fs::create_directory(dir_ / "adir");
  ASSERT_EQ(::mkfifo(Path("fifo").c_str(), 0600), 0);
  fs::create_symlink("fifo", dir_ / "to_fifo");
  struct Case {
    std::string path, kind;
  };
  for (const Case& c : {Case{Path("adir"), "a directory"}, Case{Path("fifo"), "a FIFO"},
                        Case{Path("to_fifo"), "a FIFO"}, Case{"/dev/null", "a character device"}}) {
    Status s = WriteFileAtomically(c.path, "data");
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << c.path;
    EXPECT_NE(s.message().find(c.kind), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("not a regular file"), std::string::npos) << s.message();
  }
  EXPECT_TRUE(fs::is_fifo(Path("fifo")));
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  EXPECT_EQ(Entries(), 3u);  // adir, fifo, to_fifo: no temporary left
}

TEST_F(SafeWrite, AMissingDirectoryIsNamedAndNotCreated) {
  Status s = WriteFileAtomically(Path("nope/out.json"), "x");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("does not exist"), std::string::npos) << s.message();
  EXPECT_FALSE(fs::exists(Path("nope")));
}

TEST_F(SafeWrite, DashIsStandardOutputWhenAllowed) {
  // Standard output redirected to a file for the duration of the call.
  const std::string captured = Path("stdout.txt");
  std::fflush(stdout);
  const int saved = ::dup(STDOUT_FILENO);
  ASSERT_TRUE(std::freopen(captured.c_str(), "w", stdout) != nullptr);
  Status s = WriteFileAtomically("-", "to stdout", /*allow_stdout=*/true);
  std::fflush(stdout);
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(Read(captured), "to stdout");
  EXPECT_FALSE(fs::exists("-"));
}

TEST_F(SafeWrite, AFileWrittenInPiecesAppearsOnlyAtCommit) {
  const std::string p = Path("big.json");
  std::ofstream(p) << "old";
  ASSERT_EQ(::chmod(p.c_str(), 0600), 0);
  auto w = AtomicFileWriter::Open(p);
  ASSERT_TRUE(w.ok()) << w.status().message();
  ASSERT_TRUE((*w)->Append("new ").ok());
  ASSERT_TRUE((*w)->Append("bytes").ok());
  EXPECT_EQ(Read(p), "old");  // readers see the old file until the commit
  EXPECT_EQ(Entries(), 2u);   // and the temporary beside it
  EXPECT_EQ((*w)->bytes_written(), 9);
  Status s = (*w)->Commit();
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(Read(p), "new bytes");
  EXPECT_EQ(fs::status(p).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(Entries(), 1u);
  EXPECT_FALSE((*w)->Append("more").ok());  // one commit; nothing after it
  EXPECT_EQ(Read(p), "new bytes");
}

TEST_F(SafeWrite, AWriterDroppedWithoutCommitLeavesTheTargetAndNoTemporary) {
  const std::string p = Path("kept.json");
  std::ofstream(p) << "kept";
  {
    auto w = AtomicFileWriter::Open(p);
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Append("half a trace").ok());
  }
  EXPECT_EQ(Read(p), "kept");
  EXPECT_EQ(Entries(), 1u);
}

TEST_F(SafeWrite, AWriterRefusesSpecialFilesAtOpenAndAtCommit) {
  ASSERT_EQ(::mkfifo(Path("fifo").c_str(), 0600), 0);
  auto refused = AtomicFileWriter::Open(Path("fifo"));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("a FIFO"), std::string::npos) << refused.status().message();
  // A FIFO put in the target's place while the pieces were written is not
  // replaced at the commit.
  const std::string p = Path("out.json");
  auto w = AtomicFileWriter::Open(p);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Append("x").ok());
  ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
  Status s = (*w)->Commit();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("a FIFO"), std::string::npos) << s.message();
  EXPECT_TRUE(fs::is_fifo(p));
  EXPECT_EQ(Entries(), 2u);  // the two FIFOs; the temporary is gone
}

TEST_F(SafeWrite, AWriterToDashStreamsStandardOutput) {
  const std::string captured = Path("stdout.txt");
  std::fflush(stdout);
  const int saved = ::dup(STDOUT_FILENO);
  ASSERT_TRUE(std::freopen(captured.c_str(), "w", stdout) != nullptr);
  auto w = AtomicFileWriter::Open("-", /*allow_stdout=*/true);
  Status s = w.ok() ? (*w)->Append("piece one, ") : w.status();
  if (s.ok()) s = (*w)->Append("piece two");
  if (s.ok()) s = (*w)->Commit();
  std::fflush(stdout);
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(Read(captured), "piece one, piece two");
}

TEST_F(SafeWrite, UpdateSeesTheCurrentBytesAndRemovesItsLock) {
  const std::string p = Path("list.txt");
  auto append = [](const std::string& line) {
    return
        [line](const std::optional<std::string>& cur) -> Result<std::string> { return cur.value_or("") + line + "\n"; };
  };
  ASSERT_TRUE(UpdateFileAtomically(p, append("a")).ok());
  ASSERT_TRUE(UpdateFileAtomically(p, append("b")).ok());
  EXPECT_EQ(Read(p), "a\nb\n");
  EXPECT_FALSE(fs::exists(p + ".lock"));
  // A failing merge leaves the file as it was.
  Status s = UpdateFileAtomically(
      p, [](const std::optional<std::string>&) -> Result<std::string> { return Status::Invalid("refused"); });
  EXPECT_EQ(s.message(), "refused");
  EXPECT_EQ(Read(p), "a\nb\n");
  EXPECT_EQ(Entries(), 1u);
}

// A symlink planted at the lock's path is never followed: a dangling one
// would have the writer create the file it names, one to an existing file
// would lock (and later unlink the link to) someone else's file.
TEST_F(SafeWrite, ALockPathThatIsASymlinkIsRefused) {
  const std::string p = Path("presets.toml");
  const std::string victim = Path("victim.txt");
  fs::create_symlink(victim, p + ".lock");  // dangling
  auto write = [](const std::optional<std::string>&) -> Result<std::string> { return std::string("x\n"); };
  Status s = UpdateFileAtomically(p, write);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "lock file '" + p +
                             ".lock' is a symlink: refusing to follow it (remove it if no other "
                             "braid is running)");
  EXPECT_FALSE(fs::exists(victim));
  EXPECT_FALSE(fs::exists(p));
  // Pointing at an existing file: refused too, the file untouched.
  std::ofstream(victim) << "secret\n";
  s = UpdateFileAtomically(p, write);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(Read(victim), "secret\n");
  EXPECT_TRUE(fs::is_symlink(p + ".lock"));
  // A FIFO there is not a lock either.
  fs::remove(p + ".lock");
  ASSERT_EQ(::mkfifo((p + ".lock").c_str(), 0600), 0);
  s = UpdateFileAtomically(p, write);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("is not a regular file"), std::string::npos) << s.message();
}

// Processes that each read-append-write one file 25 times: with the lock no
// append is lost, so the file ends with every line of every process.
TEST_F(SafeWrite, ConcurrentProcessesLoseNoUpdate) {
  const std::string p = Path("shared.txt");
  constexpr int kProcs = 6, kEach = 25;
  std::vector<pid_t> kids;
  for (int i = 0; i < kProcs; ++i) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      for (int j = 0; j < kEach; ++j) {
        Status s = UpdateFileAtomically(p, [&](const std::optional<std::string>& cur) -> Result<std::string> {
          return cur.value_or("") + std::to_string(i) + ":" + std::to_string(j) + "\n";
        });
        if (!s.ok()) ::_exit(1);
      }
      ::_exit(0);
    }
    kids.push_back(pid);
  }
  for (pid_t k : kids) {
    int status = 0;
    ASSERT_EQ(::waitpid(k, &status, 0), k);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  std::istringstream in(Read(p));
  std::set<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.insert(l);
  EXPECT_EQ(lines.size(), size_t(kProcs * kEach));
  EXPECT_FALSE(fs::exists(p + ".lock"));
}

}  // namespace
}  // namespace braid
