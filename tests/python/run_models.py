"""run_models.py: a run file's kernel models as the tests read them, in either layout of
/models: kind "kernel-expansions" (every agent's rows concatenated by agent id: agent a's are
rows offset[a] .. offset[a] + order[a] of /models/dictionary and /models/weights, the kernel
in /models' attributes) or the older group /models/agent_NNNN per agent."""

KERNEL_KIND = "kernel-expansions"


def _text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def packed(f):
    """Whether /models holds the concatenated kernel expansions."""
    models = f["models"]
    return "kind" in models.attrs and _text(models.attrs["kind"]) == KERNEL_KIND


def kernel_models(f):
    """{agent id: (dictionary, weights, attributes)} of every kernel model of an open file."""
    models = f["models"]
    if packed(f):
        order, offset = models["order"][()], models["offset"][()]
        dictionary, weights = models["dictionary"][()], models["weights"][()]
        attrs = dict(models.attrs)
        return {a: (dictionary[o:o + n], weights[o:o + n], dict(attrs, order=n))
                for a, (o, n) in enumerate(zip(offset.tolist(), order.tolist()))}
    return {int(name[len("agent_"):]): (group["dictionary"][()], group["weights"][()],
                                        dict(group.attrs))
            for name, group in models.items()}


def to_agent_groups(f):
    """Rewrites an open file's concatenated /models as the older layout, a group
    /models/agent_NNNN per agent (order, kernel attributes, dictionary, weights): the files
    of polka before the concatenated models, which the readers still read."""
    models = kernel_models(f)
    del f["models"]
    group = f.create_group("models")
    for agent, (dictionary, weights, attrs) in models.items():
        one = group.create_group(f"agent_{agent:04d}")
        for key in ("kernel", "sigma", "degree", "coef0"):
            one.attrs[key] = attrs[key]
        one.attrs.create("order", attrs["order"], dtype="<u8")
        one.create_dataset("dictionary", data=dictionary)
        one.create_dataset("weights", data=weights)
