/**
 * @file methods.h
 * @brief The decentralized methods (net.method), one line each, and their keys.
 *
 * METHOD(symbol, name): the ops table polka_method_<symbol> (src/sim/method/<file>.c) is run
 * by net.method = name. A method's keys are rows of POLKA_METHOD_KEYS, in keys.h's form
 * (owner "method NAME"); the method reads them from plan->settings. Adding a method is its
 * file, its line here and its key rows here.
 */
#ifndef POLKA_METHODS_H
#define POLKA_METHODS_H

#define POLKA_METHOD_LIST(METHOD) METHOD(penalty, "penalty")

#define POLKA_METHOD_KEYS(X)

#endif
