// Measures how far std::this_thread::sleep_for(L*u us) overshoots on this machine: the
// authors' artifact implements every remote fetch as such a sleep (PatternMatcher.cpp 1071-1072,
// FetchWorker.cpp), so its real fetch time is L*U{1..10} + overshoot.
#include <chrono>
#include <thread>
#include <cstdio>
#include <vector>
#include <algorithm>
int main() {
  using namespace std::chrono;
  for (int us : {0, 10, 20, 50, 100}) {
    std::vector<double> d;
    for (int k = 0; k < 400; ++k) {
      auto t0 = high_resolution_clock::now();
      std::this_thread::sleep_for(microseconds(us));
      d.push_back(duration_cast<nanoseconds>(high_resolution_clock::now() - t0).count() / 1e3 - us);
    }
    std::sort(d.begin(), d.end());
    printf("sleep %3d us: overshoot p5 %.1f p50 %.1f p95 %.1f mean %.1f us\n", us, d[20], d[200], d[380],
           [&]{double s=0; for(double x: d) s+=x; return s/d.size();}());
  }
}
