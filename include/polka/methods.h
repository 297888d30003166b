/**
 * @file methods.h
 * @brief The decentralized methods (net.method), one line each, and their keys.
 *
 * METHOD(symbol, name): the ops table polka_method_<symbol> (src/sim/method/<file>.c) is run
 * by net.method = name. A method's keys are rows of POLKA_METHOD_KEYS, in keys.h's form
 * (owner "method NAME"); the method reads them from plan->settings. Adding a method is its
 * file, its line here and its key rows here. Only macros: the key table (keys.h, src/io) reads
 * them; the methods' names and help for `polka --help` are polka/sim.h's.
 */
#ifndef POLKA_METHODS_H
#define POLKA_METHODS_H

#define POLKA_METHOD_LIST(METHOD)                                                                  \
    METHOD(penalty, "penalty")                                                                     \
    METHOD(rf_diffusion, "rf-diffusion")                                                           \
    METHOD(dkla, "dkla")                                                                           \
    METHOD(coke, "coke")

#define POLKA_METHOD_KEYS(X)                                                                       \
    X(net, features, SIZE, "256", IN(1, 131072), FIXED, PARSED, "method rf-diffusion, dkla, coke", \
      "random Fourier features D of the Gaussian kernel (learner.sigma), drawn from run.seed, "    \
      "the same for every agent; a round sends D x outputs doubles")                               \
    X(net, admm_rho, DOUBLE, "0.1", GT(0), FIXED, PARSED, "method dkla, coke",                     \
      "ADMM penalty rho of the consensus constraints (the dual step)")                             \
    X(net, rf_solve, NAME, "linear", ANY, FIXED, PARSED, "method dkla, coke",                      \
      "primal step: linear (linearized on the round's batch with step learner.eta: the online "    \
      "variant) | exact (squared loss: the exact minimiser on the agent's first batch, its "       \
      "fixed data set)")                                                                           \
    X(net, censor_alpha, DOUBLE, "0.3", GE(0), FIXED, PARSED, "method coke",                       \
      "censoring threshold h(k) = censor_alpha * censor_mu^k: an agent sends its variable only "   \
      "when it moved by h(k) since it last sent it; 0: always (dkla)")                             \
    X(net, censor_mu, DOUBLE, "0.999", FROM_BELOW(0, 1), FIXED, PARSED, "method coke",             \
      "censoring threshold's decay per round")

#endif
