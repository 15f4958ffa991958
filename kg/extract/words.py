"""Word lists of the topic rules: task head nouns, modifiers that end a phrase, cue words before a task."""

from __future__ import annotations

from kg.names import match_key


def words(text: str) -> frozenset[str]:
    """The whitespace-separated words of `text` as a set."""
    return frozenset(text.split())


# Nominalisations that head a task phrase: "image generation", "coastal circulation modeling".
TASK_HEADS = words(
    "generation prediction detection forecasting classification recognition segmentation estimation "
    "recommendation retrieval translation summarization answering clustering mapping tracking captioning "
    "synthesis completion reconstruction localization parsing planning navigation editing matching "
    "ranking quantization pruning simulation reasoning grounding inpainting denoising restoration "
    "super-resolution discovery imputation compression distillation unlearning alignment manipulation "
    "verification extraction labeling labelling tagging understanding design separation modeling "
    "modelling calibration identification"
)

# More nominalisations that head a task in a title after "for", "on" or a colon ("…: Model Selection with
# Limited Labels", "… for Imitation Learning"); in running text they name means as often as problems.
TITLE_TASK_HEADS = words(
    "selection extension balancing optimization optimisation testing inference adaptation generalization "
    "generalisation transfer exploration control locomotion creation evaluation construction acquisition "
    "attribution explanation interpolation upsampling registration search learning fairness scheduling "
    "routing typing linking"
)

# The typing policy's cues (ontology/README.md), shared by the term finder and the miner: words before a
# phrase that make it the problem addressed ("we study X", "for X") or the means used ("using X", "via X"),
# and words after it ("the X task", "an X method").
TASK_CUES_BEFORE = words(
    "for address addresses addressing tackle tackles study studies studying solve solves toward towards "
    "investigate investigates"
)
METHOD_CUES_BEFORE = words(
    "using use uses via with apply applies applying leverage leverages leveraging employ employs employing "
    "adopt adopts adopting based_on through incorporate incorporates combine combines by than"
)
TASK_CUES_AFTER = words("task tasks problem problems setting settings benchmark benchmarks")
# Words before a phrase that make it an example of the field's reach, not the paper's own topic.
EXAMPLE_CUES = ("such as", "e.g.", "including", "like", "for example", "for instance")

# Determiners and evaluative words: the phrase starts after them ("a robust X detection").
STOP_MODS = words(
    "a an the this that these those our their its his her such other various several many multiple "
    "different new novel existing prior previous current recent proposed efficient effective robust "
    "accurate better improved strong stronger successful sophisticated simple general generic standard "
    "typical common key significant challenging difficult complex important downstream specific same "
    "further more most less real-world practical large small high low good poor fine full final first "
    "second two three diverse unified overall total any all each both some few fast faster scalable "
    "reliable using via resulting"
)

# Words before a task phrase that make it the problem addressed ("for X", "we study X").
CUES = words(
    "for address addresses addressing tackle tackles tackling study studies studying on consider "
    "considers solve solves improve improves in of to toward towards"
)


# Field names too general to be a paper's task or method (the guidelines' "generic phrases").
GENERIC_TERMS = frozenset(
    match_key(t)
    for t in (
        "machine learning",
        "deep learning",
        "artificial intelligence",
        "neural network",
        "deep neural network",
        "deep network",
        "learning algorithm",
        "learning method",
        "learning model",
        "learning approach",
        "machine learning model",
        "machine learning method",
        "machine learning algorithm",
        "deep learning model",
        "deep learning method",
        "neural model",
        "deep model",
        "statistical learning",
        "learning system",
        "learning framework",
        "learning problem",
        "learning task",
        "learning process",
        "learning technique",
        "learning strategy",
        "learning paradigm",
        "learning setting",
        "training process",
        "training procedure",
        "training method",
        "training strategy",
        "optimization problem",
        "optimization method",
        "optimization algorithm",
        "inference method",
        "inference algorithm",
        "estimation method",
        "prediction model",
        "prediction task",
        "classification task",
        "classification model",
        "representation learning model",
        "AI system",
        "AI model",
        "ML model",
        "computer science",
        "foundation model",
        "pretrained model",
        "pre-trained model",
    )
)
