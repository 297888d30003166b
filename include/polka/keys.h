/**
 * @file keys.h
 * @brief Every configuration key, declared once: X(section, field, type, default, range,
 * resume, plan, owner, help).
 *
 * From these rows come the field of polka_config (config.h), the key table that parses,
 * prints and documents it (config.c, polka help, the manual page), its range check
 * (polka_config_check_ranges), whether a resumed run may change it (polka_key.resume), and
 * its copy into the plan (plan.c). A new key is one row here and, when the plan carries
 * it, its field in the plan's spec.
 *
 * - type: SIZE (size_t, at most 2^40), U64, DOUBLE (finite), NAME (a word, < 32 characters),
 *   PATH (< 512 characters).
 * - range: ANY | GT(lo) | GE(lo) | UPTO(hi) | IN(lo, hi) (closed) | FROM_BELOW(lo, hi) ([lo,
 *   hi)) | FLAG (0 or 1).
 * - resume: FIXED (a resumed run must have the checkpoint's value) | MAY_CHANGE.
 * - plan: TO(member): the value is copied into plan->member; PARSED: a name the plan parses
 *   into a kind (plan.c), or read from plan->settings.
 * - owner: the kind whose knob the key is ("split dirichlet", "graph er", ...); "" for the
 *   run's own keys. polka help prints it beside the key.
 */
#ifndef POLKA_KEYS_H
#define POLKA_KEYS_H

#include "polka/methods.h"

/** [run] */
#define POLKA_KEYS_RUN(X)                                                                          \
    X(run, mode, NAME, "decentralized", ANY, FIXED, PARSED, "",                                    \
      "decentralized (net.agents agents on the ranks) | centralized (one agent, the union of "     \
      "the streams)")                                                                              \
    X(run, seed, U64, "1", ANY, FIXED, TO(run.seed), "", "seed of every random stream of the run") \
    X(run, passes, DOUBLE, "1", GT(0), MAY_CHANGE, TO(run.passes), "",                             \
      "passes over the training set")                                                              \
    X(run, log_every, SIZE, "250", GE(1), FIXED, TO(run.log_every), "",                            \
      "training samples (all agents) between log steps")                                           \
    X(run, log_test, SIZE, "0", ANY, FIXED, TO(run.log_test), "",                                  \
      "test points scored at the log steps before the last (the first ones of the test set); "     \
      "0: all. The last log step scores the whole test set; the disagreement is measured on "      \
      "these points at every log step, the last included")                                         \
    X(run, log_agents, SIZE, "0", ANY, FIXED, TO(run.log_agents), "",                              \
      "per-agent metric columns of the run file, the CSV and the checkpoint's rows: only the "     \
      "agents 0, S, 2S, ... (S = ceil(agents / K): at most K of them); 0: every agent. The log "   \
      "lines and the summary cover every agent")                                                   \
    X(run, output, PATH, "", ANY, MAY_CHANGE, TO(run.output), "",                                  \
      "run file to write (HDF5); empty: none")                                                     \
    X(run, csv, PATH, "", ANY, MAY_CHANGE, TO(run.csv), "",                                        \
      "per-agent metrics as CSV (rank 0 writes); empty: none")                                     \
    X(run, watchdog, DOUBLE, "0", GE(0), MAY_CHANGE, TO(run.watchdog), "",                         \
      "seconds a rank waits in a round's collectives before the run ends naming the ranks "        \
      "that stopped; 0: forever")                                                                  \
    X(run, central_batch, SIZE, "0", UPTO(1 << 24), FIXED, TO(run.central_batch), "",              \
      "centralized mini-batch; 0: the union of one round (agents x learner.batch), for POLK at "   \
      "most 32 samples (or learner.batch when larger)")                                            \
    X(run, checkpoint, PATH, "", ANY, MAY_CHANGE, TO(run.checkpoint), "",                          \
      "checkpoint file (written on SIGTERM, SIGINT, SIGUSR1 and periodically; polka run --resume " \
      "FILE goes on from it); empty: run.output + .ckpt, or polka.ckpt without run.output")        \
    X(run, checkpoint_every, SIZE, "0", ANY, MAY_CHANGE, TO(run.checkpoint_every), "",             \
      "rounds between periodic checkpoints; 0: none")                                              \
    X(run, checkpoint_seconds, DOUBLE, "0", GE(0), MAY_CHANGE, TO(run.checkpoint_seconds), "",     \
      "seconds (wall clock) between periodic checkpoints; 0: none")

/** [data] */
#define POLKA_KEYS_DATA(X)                                                                         \
    X(data, source, NAME, "multidist", ANY, FIXED, PARSED, "",                                     \
      "data source, generated or file (data.train, data.test); the sources are listed below")      \
    X(data, board, SIZE, "4", UPTO(1 << 20), FIXED, TO(data.board), "source checkerboard",         \
      "checkerboard: cells per side of the board [0, board)^2 (labels alternate by cell)")         \
    X(data, snr_db, DOUBLE, "10", ANY, FIXED, TO(data.snr_db), "source sinc",                      \
      "sinc: signal-to-noise ratio of the training targets (dB)")                                  \
    X(data, noise_std, DOUBLE, "1", ANY, FIXED, TO(data.noise_std), "source friedman",             \
      "friedman: noise standard deviation")                                                        \
    X(data, train, PATH, "", ANY, FIXED, TO(data.train), "source file",                            \
      "file source: training file (IDX images, LIBSVM or CSV)")                                    \
    X(data, train_labels, PATH, "", ANY, FIXED, TO(data.train_labels), "source file",              \
      "file source, IDX: training labels file")                                                    \
    X(data, test, PATH, "", ANY, FIXED, TO(data.test), "source file", "file source: test file")    \
    X(data, test_labels, PATH, "", ANY, FIXED, TO(data.test_labels), "source file",                \
      "file source, IDX: test labels file")                                                        \
    X(data, format, NAME, "auto", ANY, FIXED, PARSED, "source file",                               \
      "file source: auto (by name: *idx*-ubyte[.gz] idx, *.csv csv, else libsvm) | idx | libsvm "  \
      "| csv")                                                                                     \
    X(data, label_column, NAME, "label", ANY, FIXED, TO(data.label_column), "source file",         \
      "file source, CSV: the label column")                                                        \
    X(data, scale, NAME, "none", ANY, FIXED, PARSED, "source file",                                \
      "file source: none | unit ([0,1] by training min/max) | standard (training mean/std)")       \
    X(data, storage, NAME, "auto", ANY, FIXED, PARSED, "source file",                              \
      "file source, LIBSVM: dense | sparse | auto (sparse when smaller: about a third of the "     \
      "values absent or more)")                                                                    \
    X(data, memory, NAME, "auto", ANY, FIXED, PARSED, "",                                          \
      "the memory a rank's data (a file source) and fault.delay's values in flight may take, and " \
      "a quarter of it the test values a log step keeps between its passes "                       \
      "(e.g. 2G, 512M, bytes), or auto: the "                                                      \
      "node's available memory (MemAvailable, the cgroup's and the Slurm job's limits) shared "    \
      "by the ranks on the node")                                                                  \
    X(data, scan_chunk, SIZE, "16777216", GE(1024), FIXED, TO(data.scan_chunk), "source file",     \
      "file source: bytes of the training file per chunk of its scan; each chunk's statistics "    \
      "are summed apart and folded in file order, and the ranks scan their runs of chunks "        \
      "apart (the scaling depends on this size in its last bits, never on the ranks)")             \
    X(data, classes, SIZE, "5", ANY, FIXED, TO(data.classes), "source multidist",                  \
      "multidist: classes")                                                                        \
    X(data, components, SIZE, "3", UPTO(1 << 16), FIXED, TO(data.components), "source multidist",  \
      "multidist: mixture components per class")                                                   \
    X(data, dim, SIZE, "2", UPTO(1 << 24), FIXED, TO(data.dim),                                    \
      "source multidist, sinc, friedman", "multidist, sinc, friedman: input dimension")            \
    X(data, mean_var, DOUBLE, "1.0", ANY, FIXED, TO(data.mean_var), "source multidist",            \
      "multidist: variance of the component means")                                                \
    X(data, sample_var, DOUBLE, "0.2", ANY, FIXED, TO(data.sample_var), "source multidist",        \
      "multidist: variance of a sample")                                                           \
    X(data, means_seed, U64, "7", ANY, FIXED, TO(data.means_seed), "source multidist",             \
      "multidist: seed of the component means")                                                    \
    X(data, n_train, SIZE, "5000", ANY, FIXED, TO(data.n_train), "",                               \
      "training samples (all agents together)")                                                    \
    X(data, n_test, SIZE, "2500", ANY, FIXED, TO(data.n_test), "", "test samples")                 \
    X(data, split, NAME, "iid", ANY, FIXED, PARSED, "",                                            \
      "how the stream reaches the agents; the splits each source takes are listed below")          \
    X(data, skew_classes, SIZE, "2", ANY, FIXED, TO(data.split_knobs.skew_classes),                \
      "split skewed", "skewed split: classes each agent mostly sees")                              \
    X(data, skew_fraction, DOUBLE, "0.9", ANY, FIXED, TO(data.split_knobs.skew_fraction),          \
      "split skewed", "skewed split: fraction of an agent's samples from its own classes")         \
    X(data, alpha, DOUBLE, "1", ANY, FIXED, TO(data.split_knobs.alpha), "split dirichlet",         \
      "dirichlet split: concentration; agent a's class proportions ~ Dir(alpha) (large: iid, "     \
      "0.1: severe)")                                                                              \
    X(data, shards, SIZE, "2", ANY, FIXED, TO(data.split_knobs.shards), "split shards",            \
      "shards split: classes per agent (a seeded shuffle of the classes dealt round-robin)")       \
    X(data, quantity_sigma, DOUBLE, "0", IN(0, 10), FIXED, TO(data.quantity_sigma), "",            \
      "quantity skew (any split): agent a's rate r_a ~ lognormal(0, sigma^2), mean 1; it "         \
      "learns its batch in a round with probability r_a / max r; 0 = off")                         \
    X(data, drift, DOUBLE, "0", IN(0, 6.283185307179586), FIXED, TO(data.drift), "",               \
      "drifting stream (multidist, sinc): radians per training sample by which the classes "       \
      "rotate (multidist) or the peak circles (sinc); the test set follows; 0 = off")              \
    X(data, unit_norm, SIZE, "0", FLAG, FIXED, TO(data.unit_norm), "",                             \
      "1: every sample, training and test, divided by its Euclidean norm after data.scale (and "   \
      "the drift's turn), as polka predict does with the run's settings; a zero sample stays "     \
      "zero (a Gaussian kernel then compares directions: contrast normalisation of images)")

/** [learner] */
#define POLKA_KEYS_LEARNER(X)                                                                      \
    X(learner, kernel, NAME, "gaussian", ANY, FIXED, PARSED, "",                                   \
      "gaussian | laplacian | polynomial | linear")                                                \
    X(learner, sigma, DOUBLE, "0.6", ANY, FIXED, TO(learner.params.kernel.sigma), "",              \
      "kernel bandwidth (polynomial: scale)")                                                      \
    X(learner, degree, SIZE, "3", UPTO(64), FIXED, TO(learner.params.kernel.degree),               \
      "kernel polynomial", "polynomial kernel degree")                                             \
    X(learner, coef0, DOUBLE, "1", ANY, FIXED, TO(learner.params.kernel.coef0),                    \
      "kernel polynomial", "polynomial kernel offset")                                             \
    X(learner, loss, NAME, "multi-hinge", ANY, FIXED, PARSED, "",                                  \
      "multi-hinge | multi-logistic | hinge | logistic | square | absolute | eps-insensitive | "   \
      "soft-margin | novelty | huber")                                                             \
    X(learner, loss_epsilon, DOUBLE, "0.1", GE(0), FIXED, TO(learner.params.loss.epsilon),         \
      "loss eps-insensitive", "eps-insensitive loss: tube width")                                  \
    X(learner, control, NAME, "komp", ANY, FIXED, PARSED, "",                                      \
      "model-order control: komp (POLK) | none (plain SGD) | norma | bsgd-remove | bsgd-project "  \
      "| bsgd-merge | nbsgd-remove | nbsgd-project; batch regression learners (centralized, "      \
      "square loss): slkl ([MPARG11]) | krr (exact kernel ridge regression)")                      \
    X(learner, eta, DOUBLE, "0.5", ANY, FIXED, TO(learner.params.eta), "", "constant step size")   \
    X(learner, lambda, DOUBLE, "1e-4", ANY, FIXED, TO(learner.params.lambda), "", "regulariser")   \
    X(learner, kp, DOUBLE, "0.04", ANY, FIXED, TO(learner.params.kp), "",                          \
      "parsimony constant: budget = kp * eta^1.5")                                                 \
    X(learner, epsilon, DOUBLE, "-1", ANY, FIXED, TO(learner.params.epsilon), "",                  \
      "KOMP budget; < 0: from kp")                                                                 \
    X(learner, jitter, DOUBLE, "1e-10", ANY, FIXED, TO(learner.params.jitter), "",                 \
      "relative jitter on the kernel diagonal")                                                    \
    X(learner, batch, SIZE, "1", IN(1, 1 << 20), FIXED, TO(learner.batch), "",                     \
      "mini-batch per agent and round")                                                            \
    X(learner, schedule, NAME, "constant", ANY, FIXED, PARSED, "",                                 \
      "step sizes: constant (eta) | invsqrt (eta/sqrt(t)) | pegasos (1/(lambda t)) | linear "      \
      "(eta (1 - t/T) over the run's T updates)")                                                  \
    X(learner, tau, SIZE, "1000", ANY, FIXED, TO(learner.params.tau), "control norma",             \
      "control norma: the newest terms kept")                                                      \
    X(learner, budget, SIZE, "100", ANY, FIXED, TO(learner.params.budget),                         \
      "control bsgd-*, nbsgd-*", "controls bsgd-*, nbsgd-*: at most this many points")             \
    X(learner, beta, DOUBLE, "1000", ANY, FIXED, TO(learner.params.beta), "control nbsgd-*",       \
      "controls nbsgd-*: maintenance with probability min(beta/t, 1)")                             \
    X(learner, neighbours, SIZE, "0", ANY, FIXED, TO(learner.params.neighbours),                   \
      "control *-project", "controls *-project: project onto the k nearest points; 0 = all")       \
    X(learner, nu, DOUBLE, "0", ANY, FIXED, TO(learner.params.nu), "",                             \
      "nu-trick: adapt rho / the tube so about a fraction nu are margin errors; 0 = off")          \
    X(learner, offset, SIZE, "0", ANY, FIXED, TO(learner.params.offset), "",                       \
      "1 = learn an unregularised offset b")                                                       \
    X(learner, suffix, DOUBLE, "0", ANY, FIXED, TO(learner.params.suffix),                         \
      "control bsgd-*, nbsgd-*",                                                                   \
      "controls bsgd-*, nbsgd-*: average the last fraction of the iterates; 0 = last iterate")     \
    X(learner, refit, DOUBLE, "0", GE(0), FIXED, TO(learner.refit), "",                            \
      "after the last round, the kept dictionary's weights by least squares on the training "      \
      "set (one +-1 output per class) with this ridge lambda; 0: off (centralized runs)")          \
    X(learner, refit_iterations, SIZE, "0", UPTO(1000), FIXED, TO(learner.refit_iterations), "",   \
      "after learner.refit's least squares: this many passes stepping to the squared hinge "       \
      "(classification)")                                                                          \
    X(learner, refit_memory, SIZE, "0", UPTO(1 << 30), MAY_CHANGE, TO(learner.refit_memory), "",   \
      "MiB the refit may hold the training set's kernel rows in (n x m doubles; the same "         \
      "result, each squared-hinge pass without recomputing them); 0: recompute each pass")         \
    X(learner, rho, DOUBLE, "1", ANY, FIXED, TO(learner.params.loss.rho),                          \
      "loss soft-margin, novelty",                                                                 \
      "soft-margin loss: margin rho (0 = perceptron); novelty: threshold")                         \
    X(learner, delta, DOUBLE, "1", ANY, FIXED, TO(learner.params.loss.delta), "loss huber",        \
      "huber loss: delta")                                                                         \
    X(learner, candidates, SIZE, "0", ANY, FIXED, TO(learner.candidates), "control slkl",          \
      "slkl: M, the training points that carry a rank-1 kernel; 0 = all")                          \
    X(learner, tol, DOUBLE, "1e-4", ANY, FIXED, TO(learner.tol), "control slkl",                   \
      "slkl: stop when F fell by less than this fraction over the last M updates")                 \
    X(learner, max_iter, SIZE, "0", ANY, FIXED, TO(learner.max_iter), "control slkl",              \
      "slkl: at most this many updates; 0 = 1000 M")

/** [net] */
#define POLKA_KEYS_NET(X)                                                                          \
    X(net, graph, PATH, "ring", ANY, FIXED, TO(net.graph), "",                                     \
      "topology file, or a generator over the agents: ring | line | star | complete | grid | "     \
      "torus | er | rgg | smallworld | ba (seeded by run.seed, retried until connected, or "       \
      "joined: net.join)")                                                                         \
    X(net, agents, SIZE, "0", UPTO(1 << 20), FIXED, TO(net.agents), "",                            \
      "agents of the network (decentralized: placed on the ranks by net.placement, at "            \
      "least one per rank), or whose union a centralized run learns from; 0: the graph "           \
      "file's nodes, else one per rank")                                                           \
    X(net, placement, NAME, "block", ANY, MAY_CHANGE, PARSED, "",                                  \
      "decentralized: how the agents are placed on the ranks: block (contiguous blocks of "        \
      "ids) | partition (METIS parts of the graph, few edges across ranks); the run is the "       \
      "same either way")                                                                           \
    X(net, p, DOUBLE, "0.2", IN(0, 1), FIXED, TO(net.spec.p), "graph er",                          \
      "generated er graph: edge probability")                                                      \
    X(net, radius, DOUBLE, "0.5", GT(0), FIXED, TO(net.spec.radius), "graph rgg",                  \
      "generated rgg graph: radius")                                                               \
    X(net, k, SIZE, "2", ANY, FIXED, TO(net.spec.k), "graph smallworld, ba",                       \
      "generated smallworld: neighbours each side; ba: edges per node")                            \
    X(net, rewire, DOUBLE, "0.1", IN(0, 1), FIXED, TO(net.spec.rewire), "graph smallworld",        \
      "generated smallworld: rewiring probability")                                                \
    X(net, join, SIZE, "0", FLAG, FIXED, TO(net.spec.join), "graph er, rgg, smallworld, ba",       \
      "1: join the generated graph's components, one edge from each to a node of the largest "     \
      "drawn from run.seed, instead of retrying seeds until it is connected (ER or RGG below "     \
      "the connectivity threshold, mean degree < ln N: a few isolated nodes)")                     \
    X(net, weights, NAME, "metropolis", ANY, FIXED, PARSED, "",                                    \
      "edge weights: uniform | metropolis | file")                                                 \
    X(net, method, NAME, "penalty", ANY, FIXED, PARSED, "",                                        \
      "decentralized method (the list below): penalty ([KPRR18], the default) | rf-diffusion "     \
      "| dkla | coke (random features)")                                                           \
    X(net, penalty, NAME, "paper", ANY, FIXED, PARSED, "method penalty",                           \
      "consensus penalty: paper | symmetric")                                                      \
    X(net, c, DOUBLE, "1", GE(0), FIXED, TO(net.c), "", "consensus penalty coefficient")           \
    X(net, share, NAME, "points", ANY, FIXED, PARSED, "",                                          \
      "what a round sends with each point: points ([KPRR18]: the point alone, the neighbour "      \
      "answers with its value there) | samples (the point and its label, which also enters "       \
      "the neighbour's loss as one of its own samples)")                                           \
    X(net, resample_every, SIZE, "0", ANY, FIXED, TO(net.resample_every), "",                      \
      "time-varying graph: a new graph from the generator every this many rounds (epoch e "        \
      "seeded by run.seed and e, retried until connected); 0: never")                              \
    X(net, gossip, SIZE, "0", FLAG, FIXED, TO(net.gossip), "",                                     \
      "1: one-peer gossip, each round each agent sends its points to one random neighbour "        \
      "(which answers); 0: to all")                                                                \
    X(net, codec_points, NAME, "float64", ANY, FIXED, PARSED, "",                                  \
      "how the points a method sends travel: float64 (exact) | float32 | float16 | int8 (one "     \
      "exponent byte a message: step 2^(e/4) >= max|x|/127) | uint8 (no byte a message: 256 "      \
      "levels over the run's [net.codec_low, net.codec_high], a coordinate outside it clamped "    \
      "and counted in points_clamped); the receiver learns from what it decodes")                  \
    X(net, codec_low, DOUBLE, "0", ANY, FIXED, PARSED, "",                                         \
      "net.codec_points = uint8: the lowest level of its grid (0 fits data.scale = unit; a "       \
      "generated source needs its own range, e.g. -4 and 4 for multidist)")                        \
    X(net, codec_high, DOUBLE, "1", ANY, FIXED, PARSED, "",                                        \
      "net.codec_points = uint8: the highest level of its grid, above net.codec_low")              \
    X(net, codec_values, NAME, "float64", ANY, FIXED, PARSED, "",                                  \
      "how model values travel (the penalty method's answers, and its f_i with net.penalty = "     \
      "symmetric): float64 | float32 | float16 | int8")                                            \
    X(net, codec_vectors, NAME, "float64", ANY, FIXED, PARSED, "",                                 \
      "how weight vectors travel (the random-feature methods): float64 | float32 | float16 | "     \
      "int8 | top-k | random-k (net.codec_k of the entries of the increment since the last "       \
      "message, with error feedback: CHOCO-gossip)")                                               \
    X(net, codec_k, DOUBLE, "0.1", IN(0, 1), FIXED, PARSED, "",                                    \
      "top-k, random-k: the fraction of a vector's entries a message carries")                     \
    X(net, codec_kept, NAME, "float32", ANY, FIXED, PARSED, "",                                    \
      "top-k, random-k: how the kept values travel: float32 | float16 | int8 (one exponent "       \
      "byte a message) | float64; top-k's indices take 2 bytes each (4 above 65 536 entries), "    \
      "random-k sends none (its agent and round, 12 bytes: the receiver draws them)")              \
    X(net, codec_gamma, DOUBLE, "0", IN(0, 1), FIXED, PARSED, "",                                  \
      "top-k, random-k with rf-diffusion: 0 combines the copies the neighbours hold as the dense " \
      "codecs do; > 0 is CHOCO-gossip's consensus step, theta_i = psi_i + gamma sum_j a_ij "       \
      "(hat psi_j - hat psi_i), which keeps the network average but mixes gamma times as fast "    \
      "(at codec_k 0.1, 0.4 diverged)")

/** [fault] */
#define POLKA_KEYS_FAULT(X)                                                                        \
    X(fault, link_loss, DOUBLE, "0", FROM_BELOW(0, 1), FIXED, TO(fault.link_loss), "",             \
      "probability that a directed message is lost in a round (a point going out and the values "  \
      "coming back are separate messages); a lost message is not sent")                            \
    X(fault, offline, DOUBLE, "0", FROM_BELOW(0, 1), FIXED, TO(fault.offline), "",                 \
      "probability that an agent sits out a round (no learning, sends and answers nothing)")       \
    X(fault, leave, PATH, "", ANY, FIXED, TO(fault.leave), "",                                     \
      "agents offline from round fault.leave_at until fault.return_at, e.g. 0,3,8-11")             \
    X(fault, leave_at, SIZE, "1", GE(1), FIXED, TO(fault.leave_at), "",                            \
      "the first round (1-based, as the run file counts) the fault.leave agents are offline")      \
    X(fault, return_at, SIZE, "0", ANY, FIXED, TO(fault.return_at), "",                            \
      "the first round the fault.leave agents are back; 0: never")                                 \
    X(fault, delay, SIZE, "0", UPTO(1000), FIXED, TO(fault.delay), "",                             \
      "stale values: a neighbour's values arrive up to this many rounds late (uniform); an "       \
      "agent uses the newest it has, at most this old, at the points they were computed at")       \
    X(fault, renormalise, SIZE, "0", FLAG, FIXED, TO(fault.renormalise), "",                       \
      "1: scale the weights of the neighbours heard from in a round to the full row sum; 0: "      \
      "the missing terms are dropped")

/** [async] */
#define POLKA_KEYS_ASYNC(X)                                                                        \
    X(async, engine, NAME, "lockstep", ANY, FIXED, PARSED, "",                                     \
      "decentralized: lockstep (every agent updates once per round) | events (each agent at its "  \
      "own speed, messages with latencies, in virtual time: the async.* laws)")                    \
    X(async, compute, DOUBLE, "1", GT(0), FIXED, PARSED, "",                                       \
      "median virtual time of one update (the unit of async.horizon and the latencies; "           \
      "these timing keys also give lockstep rounds their clock column)")                           \
    X(async, compute_sigma, DOUBLE, "0", IN(0, 10), FIXED, PARSED, "",                             \
      "log-normal spread of the agents' speeds: agent i's median update time is async.compute "    \
      "* exp(sigma Z_i), drawn once per agent")                                                    \
    X(async, compute_jitter, DOUBLE, "0", IN(0, 10), FIXED, PARSED, "",                            \
      "log-normal spread of one agent's update times around its median, drawn per update")         \
    X(async, slow, PATH, "", ANY, FIXED, PARSED, "",                                               \
      "agents that are async.slow_factor times slower, e.g. 0,3,8-11")                             \
    X(async, slow_fraction, DOUBLE, "0", IN(0, 1), FIXED, PARSED, "",                              \
      "each agent is also slow with this probability (drawn once per agent from run.seed)")        \
    X(async, slow_factor, DOUBLE, "10", GE(1), FIXED, PARSED, "",                                  \
      "how many times slower the slow agents' updates are")                                        \
    X(async, latency, DOUBLE, "0.1", GT(0), FIXED, PARSED, "",                                     \
      "the smallest virtual time a message takes on a link (also the engine's lookahead: the "     \
      "ranks agree once per this much virtual time)")                                              \
    X(async, latency_jitter, DOUBLE, "0", GE(0), FIXED, PARSED, "",                                \
      "mean of an exponential delay added to each message's latency")                              \
    X(async, bandwidth, DOUBLE, "0", GE(0), FIXED, PARSED, "",                                     \
      "bytes per unit of virtual time of a link: a message of B bytes takes B / bandwidth "        \
      "more; 0: unlimited")                                                                        \
    X(async, horizon, DOUBLE, "0", GE(0), FIXED, PARSED, "engine events",                          \
      "virtual time the run lasts; 0: the lockstep run's rounds times async.compute")              \
    X(async, log_interval, DOUBLE, "0", GE(0), FIXED, PARSED, "engine events",                     \
      "virtual time between log rows; 0: the time the agents take at the median speed to learn "   \
      "run.log_every samples")                                                                     \
    X(async, max_age, SIZE, "8", IN(1, 1000), FIXED, PARSED, "engine events",                      \
      "penalty method: a neighbour's values at the own points of an earlier update are used "      \
      "while at most this many updates old")                                                       \
    X(async, staleness, SIZE, "0", UPTO(1000000), FIXED, PARSED, "engine events",                  \
      "bounded staleness: an agent does not finish update k before it has heard every "            \
      "neighbour's update k - staleness or later; 0: nobody waits")                                \
    X(async, max_work, DOUBLE, "1e8", GT(0), MAY_CHANGE, PARSED, "engine events",                  \
      "the work an event-engine run may take, estimated before it starts: its windows "            \
      "(async.horizon / async.latency), log rows and updates (the agents' speeds over the "        \
      "horizon); a run estimated above it is refused (raise it to run one anyway)")

/** [privacy] */
#define POLKA_KEYS_PRIVACY(X)                                                                      \
    X(privacy, clip, DOUBLE, "0", GE(0), FIXED, PARSED, "method penalty",                          \
      "the Gaussian mechanism on the points the penalty method sends: each is clipped to this "    \
      "L2 norm and perturbed with N(0, sigma^2 I), and both ends learn from the noisy point; "     \
      "sigma from privacy.sample_epsilon and privacy.sample_delta; 0: off")                        \
    X(privacy, sample_epsilon, DOUBLE, "1", ANY, FIXED, PARSED, "method penalty",                  \
      "privacy.clip > 0: the epsilon of one release of a sample's point (> 0); the run file "      \
      "reports per agent the epsilon composed over a training row's releases")                     \
    X(privacy, sample_delta, DOUBLE, "1e-5", ANY, FIXED, PARSED, "method penalty",                 \
      "privacy.clip > 0: the delta of one release, and of the composed epsilon (in (0, 1))")

/** Every key, in the order of the table (and of the settings a checkpoint stores). */
#define POLKA_KEYS(X)                                                                              \
    POLKA_KEYS_RUN(X)                                                                              \
    POLKA_KEYS_DATA(X)                                                                             \
    POLKA_KEYS_LEARNER(X)                                                                          \
    POLKA_KEYS_NET(X)                                                                              \
    POLKA_METHOD_KEYS(X)                                                                           \
    POLKA_KEYS_FAULT(X)                                                                            \
    POLKA_KEYS_ASYNC(X)                                                                            \
    POLKA_KEYS_PRIVACY(X)

#endif
