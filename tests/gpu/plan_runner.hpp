// What the GPU tests share to run a plan: options from "key=value" strings, one SpMV through a
// plan on its own stream with the output poisoned when beta == 0, directly or captured into a
// CUDA graph, and the nodes one apply records into a graph.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "runtime/device_buffer.hpp"
#include "tcsparse/plan.hpp"

namespace tcsparse::testing {

inline PlanOptions options_of(std::vector<std::string> parameters) {
  PlanOptions options;
  options.parameters = std::move(parameters);
  return options;
}

/// y = alpha A x + beta y0 through `plan` on a new stream (y poisoned with NaN when beta == 0),
/// downloaded after the stream has finished.
template <typename Value>
std::vector<Value> run_spmv(const SpmvPlan<Value>& plan, const std::vector<Value>& x,
                            const std::vector<Value>& y0, test::Scalars s) {
  detail::DeviceBuffer<Value> dx(x);
  detail::DeviceBuffer<Value> dy(s.beta == 0.0 ? test::make_poisoned<Value>(y0.size()) : y0);
  const detail::CudaStream stream;
  plan.apply(dx.data(), dy.data(), static_cast<scalar_t<Value>>(s.alpha),
             static_cast<scalar_t<Value>>(s.beta), stream.get());
  stream.synchronize();
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  return dy.download();
}

/// run_spmv with the apply captured into a CUDA graph on a new stream (capture mode global: any
/// synchronisation or allocation inside apply fails it) and the graph launched `launches` times
/// (more than once only with beta == 0, which makes every launch write the same y). Returns y
/// after the last launch.
template <typename Value>
std::vector<Value> run_spmv_in_graph(const SpmvPlan<Value>& plan, const std::vector<Value>& x,
                                     const std::vector<Value>& y0, test::Scalars s,
                                     int launches = 1) {
  detail::DeviceBuffer<Value> dx(x);
  detail::DeviceBuffer<Value> dy(s.beta == 0.0 ? test::make_poisoned<Value>(y0.size()) : y0);
  const detail::CudaStream stream;
  cudaGraph_t graph = nullptr;
  EXPECT_EQ(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal), cudaSuccess);
  plan.apply(dx.data(), dy.data(), static_cast<scalar_t<Value>>(s.alpha),
             static_cast<scalar_t<Value>>(s.beta), stream.get());
  EXPECT_EQ(cudaStreamEndCapture(stream.get(), &graph), cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  EXPECT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  for (int launch = 0; launch < launches; ++launch)
    EXPECT_EQ(cudaGraphLaunch(exec, stream.get()), cudaSuccess);
  stream.synchronize();
  if (exec) cudaGraphExecDestroy(exec);
  if (graph) cudaGraphDestroy(graph);
  return dy.download();
}

/// The nodes (kernel launches, memsets, copies) that `apply(stream)` records into a CUDA graph:
/// what one apply costs in launches. E.g.
///   graph_nodes_of([&](cudaStream_t stream) { plan.apply(x, y, 1.0, 0.5, stream); })
template <typename Apply>
std::size_t graph_nodes_of(Apply&& apply) {
  const detail::CudaStream stream;
  cudaGraph_t graph = nullptr;
  EXPECT_EQ(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal), cudaSuccess);
  apply(stream.get());
  EXPECT_EQ(cudaStreamEndCapture(stream.get(), &graph), cudaSuccess);
  std::size_t nodes = 0;
  EXPECT_EQ(cudaGraphGetNodes(graph, nullptr, &nodes), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  return nodes;
}

}  // namespace tcsparse::testing
