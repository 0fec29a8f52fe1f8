// An imported trace's GEMMs beside its timeline (braid/view/gemm_rows.h):
// per GEMM its rank, layer and pass (its ub_cfgs key), label, overlap method, verdict and times, as
// `braid report --by-gemm` gives them. A click on a row asks for the view
// to show that GEMM.
#pragma once

#include <QTableWidget>
#include <vector>

#include "braid/gemm_overlap.h"

namespace braid::view {

class GemmPanel : public QTableWidget {
  Q_OBJECT

 public:
  enum Column { kRank, kIndex, kKey, kLabel, kMethod, kVerdict, kGemm, kComm, kExposed, kKernel, kColumnCount };
  explicit GemmPanel(QWidget* parent = nullptr);
  void ShowRows(std::vector<GemmOverlapRow> rows);
  const std::vector<GemmOverlapRow>& rows() const { return rows_; }

 signals:
  // Stored times of the GEMM's first kernel start and last kernel end.
  void gemmClicked(qint64 start_ns, qint64 end_ns);

 private:
  std::vector<GemmOverlapRow> rows_;
};

}  // namespace braid::view
