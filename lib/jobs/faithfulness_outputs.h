// What `attn-viz faithfulness` writes and prints (jobs/faithfulness_job.h):
//   the table   one row per measure and one for the random orders: the AOPC of
//               comprehensiveness (higher: the map found what the prediction needs) and of
//               sufficiency (lower: what it ranks first is enough), and both curves' ends
//   --json      {"producer", "model", "measures", "k", "random", "seed", "erase",
//                "summary": {measure: {"comprehensiveness": [K], "sufficiency": [K],
//                                      "comprehensiveness_aopc", "sufficiency_aopc"}, …,
//                            "random": {…}},
//                "texts": [{"tokens", "ids", "position", "prediction": {"id", "token",
//                           "probability"}, "erasable": [positions],
//                           "measures": {measure: {"ranking": [positions], "comprehensiveness",
//                                                  "sufficiency"}, …}, "random": {…}}, …]}
//   the figure  both curves of every measure over k, beside the random orders' (grey)
#pragma once

#include <string>

#include "jobs/faithfulness_job.h"
#include "render/figure.h"

namespace attnviz {

std::string faithfulness_json(const faithfulness_report& r);
std::string faithfulness_table(const faithfulness_report& r);
figure faithfulness_figure(const faithfulness_report& r);

}  // namespace attnviz
