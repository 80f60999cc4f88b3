"""M/M/1 FIFO in SimPy 2 (Debian's python3-simpy), the same model as
examples/single-turn/mg1.sq at its defaults, for bench/run.sh to time.

usage: mm1_simpy2.py LAMBDA HORIZON WARMUP SEED
Prints the mean response time after the warm-up, the number of samples.
"""
import random
import sys

from SimPy.Simulation import Process, Resource, activate, hold, initialize, now, release, request, simulate

lam, horizon, warmup, seed = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
rng_arrive, rng_serve = random.Random(seed), random.Random(seed + 1)
stats = {"sum": 0.0, "n": 0}


class Job(Process):
    def run(self, server):
        start = now()
        yield request, self, server
        yield hold, self, rng_serve.expovariate(1.0)
        yield release, self, server
        if now() >= warmup:
            stats["sum"] += now() - start
            stats["n"] += 1


class Arrivals(Process):
    def run(self, server):
        while True:
            job = Job()
            activate(job, job.run(server))
            yield hold, self, rng_arrive.expovariate(lam)


initialize()
server = Resource(capacity=1)
src = Arrivals()
activate(src, src.run(server))
simulate(until=horizon)
print("mean_response %.4f samples %d" % (stats["sum"] / max(stats["n"], 1), stats["n"]))
