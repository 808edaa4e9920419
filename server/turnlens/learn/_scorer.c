/* The learned model's linear pass, compiled (optional).
 *
 * Kernel(chars, words, bigrams, weights, n_classes, char_sizes, max_tokens, tail_tokens, cjk,
 *        [bias, temperature, offsets, dense_weight, head, tail, shape, ..., vocabulary, counts])
 * holds one model's n-gram vocabulary in open-addressing tables and its weights feature-major.
 * The vocabulary is three lists of str (chars, words, bigrams), or, with those None, one str
 * `vocabulary` of NUL-separated keys whose first `counts` = (chars, words, bigrams) are read (a
 * model file's key blob as it is: no Python string per key).
 *
 * Kernel.grams(region) reads the text that turnlens.learn.features.region() made, finds its
 * character n-grams, its tokens (as features.TOKEN_PATTERN: one CJK character, a run of other
 * word characters, or a run of punctuation) and their bigrams, keeps each vocabulary entry
 * once, and returns (per-class weight sums, how many entries were present).
 *
 * Kernel.predict(text, region, words, lines, rules, votes) is the whole answer of a
 * mean-pooled model: the n-grams as above (the region made here for ASCII text, where it is
 * lower-casing and folding digits), the shape features of features.shape() (length buckets,
 * the share of code lines, the last character), the rule and vote features whose indices it
 * is given, the pooling of model.Model.combine() and the calibrated softmax of
 * Model.prediction(), in the same order of operations, so that the answers are those of the
 * Python code to the last bit (sums in the order Python's sum() makes them).
 * turnlens.learn.native checks that the feature definitions are the ones this file follows.
 * Without a C compiler this file is simply not built: the pure-Python scorer gives the same
 * answers (tests/learn/test_scorer.py).
 */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF /* a*b+c stays two roundings, as in Python (gcc: setup.py) */
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

enum { KIND_CHAR = 0, KIND_WORD = 1, KIND_BIGRAM = 2, MAX_SIZES = 8, MAX_CJK = 16, AHEAD = 8, MAX_EDGES = 16 };

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)0)
#endif

/* Character n-grams of up to four code points (21 bits each) are kept packed in their own
 * table, key and index in 16 bytes: a lookup reads one slot, never the key pool */
typedef struct {
    uint64_t a;    /* code points 0..2 */
    uint32_t b;    /* code point 3, and the length above bit 21 */
    int32_t index; /* -1: an empty slot */
} Short;

/* Character n-grams of up to four code points from 1 to 255 (most of them: ASCII and Latin-1)
 * have a table of 8-byte slots, the code points packed one a byte (the length is the count of
 * bytes that are not 0): a quarter of the memory of `Short`, so that it stays in a core's cache */
typedef struct {
    uint32_t key;
    int32_t index; /* -1: an empty slot */
} Small;

/* 8 bytes a slot, so that the table of a 30,000-key vocabulary stays in a core's cache:
 * the key itself is read (from the pool) only when the hash's tag matches */
typedef struct {
    uint32_t tag;
    int32_t index; /* -1: an empty slot */
} Slot;

typedef struct {
    PyObject_HEAD
    Slot *slots;
    size_t mask;
    Short *shorts;
    size_t smask;
    Small *smalls;
    size_t qmask;
    int qshift;
    Py_UCS4 *pool;
    Py_ssize_t pool_len;
    uint32_t *key_start, *key_len; /* by index: where its key is in the pool */
    Py_ssize_t kind_end[3];          /* indices of kind k are below kind_end[k] */
    float *weights;                  /* feature-major: weights[index * n_classes + k] */
    Py_ssize_t n_index;
    int n_classes;
    uint32_t *stamp; /* stamp[index] == epoch: already counted in this call */
    uint32_t epoch;
    int sizes[MAX_SIZES];
    int n_sizes;
    Py_ssize_t max_tokens, tail_tokens;
    Py_UCS4 cjk[MAX_CJK][2];
    int n_cjk;
    Py_UCS4 cjk_min;
    /* scratch, grown as needed */
    Py_UCS4 *text;
    Py_ssize_t text_cap;
    Py_ssize_t *tok; /* start, length pairs */
    Py_ssize_t tok_cap;
    double *sums;
    uint64_t *pa; /* per character n-gram of the text: packed key, hash; then the hits */
    uint32_t *pb;
    uint64_t *ph;
    Py_ssize_t *hits;
    uint32_t *qk, *qh; /* per Small n-gram: key, slot */
    Py_ssize_t p_cap;
    /* the decision (predict), set when `bias` is given */
    int decides;
    double *bias, *offsets, *logits, *dsums;
    double temperature, dense_weight;
    Py_ssize_t head, tail;
    Py_ssize_t word_edges[MAX_EDGES], word_index[MAX_EDGES + 1];
    int n_word_edges;
    Py_ssize_t line_edges[MAX_EDGES], line_index[MAX_EDGES + 1];
    int n_line_edges;
    Py_ssize_t code_min_lines, code_rows;
    double code_cuts[MAX_EDGES];
    Py_ssize_t code_index[MAX_EDGES + 1];
    int n_code_cuts;
    Py_UCS4 ends[MAX_EDGES];
    Py_ssize_t ends_index[MAX_EDGES];
    int n_ends;
    Py_UCS4 word_cjk[MAX_CJK][2];
    int n_word_cjk;
    Py_ssize_t *dense; /* the text's dense features present, in order */
    Py_ssize_t dense_cap;
    PyObject *rule_index; /* rule id -> its feature's index (dict), or NULL */
    PyObject *classes;    /* tuple of the class names, or NULL */
    PyObject *prediction; /* the type predict() answers with (model.Prediction), or NULL */
} Kernel;

static void pack(const Py_UCS4 *s, Py_ssize_t n, uint64_t *a, uint32_t *b) {
    uint64_t x = 0;
    for (Py_ssize_t i = 0; i < n && i < 3; i++) x |= (uint64_t)s[i] << (21 * i);
    *a = x;
    *b = (n > 3 ? (uint32_t)s[3] : 0) | ((uint32_t)n << 21);
}

static uint64_t short_hash(uint64_t a, uint32_t b) {
    uint64_t h = a * 0x9E3779B97F4A7C15ULL + (uint64_t)b * 0xC2B2AE3D27D4EB4FULL;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ULL;
    return h ^ (h >> 32);
}

static void short_insert(Short *table, size_t mask, uint64_t a, uint32_t b, Py_ssize_t index) {
    for (size_t i = (size_t)short_hash(a, b) & mask;; i = (i + 1) & mask) {
        if (table[i].index < 0 || (table[i].a == a && table[i].b == b)) {
            /* a repeated key: the later index wins, as in a dict */
            table[i].a = a, table[i].b = b, table[i].index = (int32_t)index;
            return;
        }
    }
}

/* the Small key of s[0..n), or 0 when it has none (a code point of 0 or above 255, or n > 4) */
static uint32_t small_key(const Py_UCS4 *s, Py_ssize_t n) {
    if (n < 1 || n > 4) return 0;
    uint32_t key = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (s[i] - 1u > 254u) return 0;
        key |= (uint32_t)s[i] << (8 * i);
    }
    return key;
}

static uint32_t small_slot(const Kernel *self, uint32_t key) {
    return (uint32_t)(((uint64_t)key * 0x9E3779B97F4A7C15ULL) >> self->qshift) & (uint32_t)self->qmask;
}

static void small_insert(Kernel *self, uint32_t key, Py_ssize_t index) {
    for (size_t i = small_slot(self, key);; i = (i + 1) & self->qmask) {
        if (self->smalls[i].index < 0 || self->smalls[i].key == key) {
            /* a repeated key: the later index wins, as in a dict */
            self->smalls[i].key = key, self->smalls[i].index = (int32_t)index;
            return;
        }
    }
}

/* FNV-1a of a key's code points; a key's hash is this, mixed with its kind (hash_of). A bigram
 * "a b" hashes its two tokens' FNV (pair_hash), so that the bigrams of a text cost no second
 * pass over their characters: the kernel hashes each token once. */
static uint64_t fnv(const Py_UCS4 *s, Py_ssize_t n) {
    uint64_t h = 1469598103934665603ULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        h ^= (uint64_t)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static uint64_t finish(uint64_t h, int kind) {
    h ^= (uint64_t)(kind + 1) * 0x9E3779B97F4A7C15ULL;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ULL;
    return h ^ (h >> 32);
}

static uint64_t pair_hash(uint64_t a, uint64_t b) {
    return finish(a * 0xC2B2AE3D27D4EB4FULL + b, KIND_BIGRAM);
}

static uint64_t hash_of(int kind, const Py_UCS4 *s, Py_ssize_t n) {
    if (kind == KIND_BIGRAM) { /* split at the first space: a text's bigram is "token token" */
        for (Py_ssize_t i = 0; i < n; i++)
            if (s[i] == ' ') return pair_hash(fnv(s, i), fnv(s + i + 1, n - i - 1));
    }
    return finish(fnv(s, n), kind);
}

static int kind_of(const Kernel *self, Py_ssize_t index) {
    return index < self->kind_end[0] ? KIND_CHAR : index < self->kind_end[1] ? KIND_WORD : KIND_BIGRAM;
}

static int same(const Kernel *self, Py_ssize_t index, int kind, const Py_UCS4 *s, Py_ssize_t n) {
    if (kind_of(self, index) != kind || (Py_ssize_t)self->key_len[index] != n) return 0;
    const Py_UCS4 *key = self->pool + self->key_start[index];
    for (Py_ssize_t i = 0; i < n; i++) /* keys are short: a loop, not a call to memcmp */
        if (key[i] != s[i]) return 0;
    return 1;
}

/* whether the bigram of `index` is a, a space, b */
static int same_pair(const Kernel *self, Py_ssize_t index, const Py_UCS4 *a, Py_ssize_t na, const Py_UCS4 *b,
                     Py_ssize_t nb) {
    if (kind_of(self, index) != KIND_BIGRAM || (Py_ssize_t)self->key_len[index] != na + 1 + nb) return 0;
    const Py_UCS4 *key = self->pool + self->key_start[index];
    for (Py_ssize_t i = 0; i < na; i++)
        if (key[i] != a[i]) return 0;
    if (key[na] != ' ') return 0;
    for (Py_ssize_t i = 0; i < nb; i++)
        if (key[na + 1 + i] != b[i]) return 0;
    return 1;
}

static Py_ssize_t lookup_hashed(const Kernel *self, uint64_t h, int kind, const Py_UCS4 *s, Py_ssize_t n) {
    uint32_t tag = (uint32_t)(h >> 32);
    for (size_t i = (size_t)h & self->mask;; i = (i + 1) & self->mask) {
        const Slot *slot = &self->slots[i];
        if (slot->index < 0) return -1;
        if (slot->tag == tag && same(self, slot->index, kind, s, n)) return slot->index;
    }
}

static Py_ssize_t lookup(const Kernel *self, int kind, const Py_UCS4 *s, Py_ssize_t n) {
    return lookup_hashed(self, hash_of(kind, s, n), kind, s, n);
}

static Py_ssize_t lookup_pair(const Kernel *self, uint64_t h, const Py_UCS4 *a, Py_ssize_t na, const Py_UCS4 *b,
                              Py_ssize_t nb) {
    uint32_t tag = (uint32_t)(h >> 32);
    for (size_t i = (size_t)h & self->mask;; i = (i + 1) & self->mask) {
        const Slot *slot = &self->slots[i];
        if (slot->index < 0) return -1;
        if (slot->tag == tag && same_pair(self, slot->index, a, na, b, nb)) return slot->index;
    }
}

static void insert(Kernel *self, int kind, Py_ssize_t index) {
    const Py_UCS4 *s = self->pool + self->key_start[index];
    Py_ssize_t n = (Py_ssize_t)self->key_len[index];
    uint64_t h = hash_of(kind, s, n);
    uint32_t tag = (uint32_t)(h >> 32);
    for (size_t i = (size_t)h & self->mask;; i = (i + 1) & self->mask) {
        Slot *slot = &self->slots[i];
        if (slot->index < 0) {
            slot->tag = tag, slot->index = (int32_t)index;
            return;
        }
        if (slot->tag == tag && same(self, slot->index, kind, s, n)) {
            slot->index = (int32_t)index; /* a repeated key: the later index wins, as in a dict */
            return;
        }
    }
}

static void add(Kernel *self, Py_ssize_t index, Py_ssize_t *count) {
    if (index < 0 || self->stamp[index] == self->epoch) return;
    self->stamp[index] = self->epoch;
    ++*count;
    const float *w = self->weights + index * self->n_classes;
    for (int k = 0; k < self->n_classes; k++) self->sums[k] += (double)w[k];
}

static int is_cjk(const Kernel *self, Py_UCS4 c) {
    if (c < self->cjk_min) return 0;
    for (int i = 0; i < self->n_cjk; i++)
        if (c >= self->cjk[i][0] && c <= self->cjk[i][1]) return 1;
    return 0;
}

/* Python's `re` on str: \w is alphanumeric or '_', \s is Unicode white space; for ASCII
 * from a table made with the same functions at import */
enum { C_WORD = 1, C_SPACE = 2 };
static unsigned char ascii_class[128];

static int is_word(Py_UCS4 c) {
    return c < 128 ? ascii_class[c] & C_WORD : Py_UNICODE_ISALNUM(c);
}

static int is_space(Py_UCS4 c) {
    return c < 128 ? ascii_class[c] & C_SPACE : Py_UNICODE_ISSPACE(c);
}

static int grow(void **buf, Py_ssize_t *cap, Py_ssize_t need, size_t item) {
    if (need <= *cap) return 0;
    Py_ssize_t n = need < 256 ? 256 : need * 2;
    void *p = PyMem_Realloc(*buf, (size_t)n * item);
    if (p == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *buf = p, *cap = n;
    return 0;
}

/* the per-n-gram scratch arrays, grown together */
static int grow_grams(Kernel *self, Py_ssize_t need) {
    if (need <= self->p_cap) return 0;
    size_t n = (size_t)(need < 128 ? 256 : need * 2);
    void *pa = PyMem_Realloc(self->pa, n * sizeof(uint64_t));
    if (pa != NULL) self->pa = pa;
    void *pb = PyMem_Realloc(self->pb, n * sizeof(uint32_t));
    if (pb != NULL) self->pb = pb;
    void *ph = PyMem_Realloc(self->ph, n * sizeof(uint64_t));
    if (ph != NULL) self->ph = ph;
    void *hits = PyMem_Realloc(self->hits, n * sizeof(Py_ssize_t));
    if (hits != NULL) self->hits = hits;
    void *qk = PyMem_Realloc(self->qk, n * sizeof(uint32_t));
    if (qk != NULL) self->qk = qk;
    void *qh = PyMem_Realloc(self->qh, n * sizeof(uint32_t));
    if (qh != NULL) self->qh = qh;
    if (!pa || !pb || !ph || !hits || !qk || !qh) {
        PyErr_NoMemory();
        return -1;
    }
    self->p_cap = (Py_ssize_t)n;
    return 0;
}

static void Kernel_dealloc(Kernel *self) {
    PyMem_Free(self->slots);
    PyMem_Free(self->shorts);
    PyMem_Free(self->smalls);
    PyMem_Free(self->qk);
    PyMem_Free(self->qh);
    PyMem_Free(self->pa);
    PyMem_Free(self->pb);
    PyMem_Free(self->ph);
    PyMem_Free(self->hits);
    PyMem_Free(self->pool);
    PyMem_Free(self->key_start);
    PyMem_Free(self->key_len);
    PyMem_Free(self->weights);
    PyMem_Free(self->stamp);
    PyMem_Free(self->text);
    PyMem_Free(self->tok);
    PyMem_Free(self->sums);
    PyMem_Free(self->bias);
    PyMem_Free(self->offsets);
    PyMem_Free(self->logits);
    PyMem_Free(self->dsums);
    PyMem_Free(self->dense);
    Py_XDECREF(self->rule_index);
    Py_XDECREF(self->classes);
    Py_XDECREF(self->prediction);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* -- the decision's parameters (predict) -------------------------------------------------- */

static int read_doubles(PyObject *seq, double *out, Py_ssize_t n, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (fast == NULL) return -1;
    int ok = PySequence_Fast_GET_SIZE(fast) == n ? 0 : -1;
    for (Py_ssize_t i = 0; ok == 0 && i < n; i++) {
        out[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fast, i));
        if (out[i] == -1.0 && PyErr_Occurred()) ok = -1;
        else if (!isfinite(out[i])) ok = -1;
    }
    Py_DECREF(fast);
    if (ok < 0 && !PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "%s: %zd finite numbers", what, n);
    return ok;
}

/* a sequence of at most `max` ints; returns how many, or -1 */
static int read_sizes(PyObject *seq, Py_ssize_t *out, int max, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (fast == NULL) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    int ok = n <= max ? 0 : -1;
    for (Py_ssize_t i = 0; ok == 0 && i < n; i++) {
        out[i] = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(fast, i));
        if (out[i] == -1 && PyErr_Occurred()) ok = -1;
    }
    Py_DECREF(fast);
    if (ok < 0) {
        if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "%s: at most %d whole numbers", what, max);
        return -1;
    }
    return (int)n;
}

static PyObject *shape_item(PyObject *shape, const char *key) {
    PyObject *v = PyDict_GetItemString(shape, key); /* borrowed */
    if (v == NULL) PyErr_Format(PyExc_ValueError, "shape: %s missing", key);
    return v;
}

/* the features' indices: -1 (not in the vocabulary) or a dense feature of the model */
static int check_indices(const Kernel *self, const Py_ssize_t *index, int n) {
    for (int i = 0; i < n; i++)
        if (index[i] < -1 || index[i] >= self->n_index) {
            PyErr_SetString(PyExc_ValueError, "shape: a feature index out of range");
            return -1;
        }
    return 0;
}

static int decision_init(Kernel *self, PyObject *bias, double temperature, PyObject *offsets,
                         double dense_weight, Py_ssize_t head, Py_ssize_t tail, PyObject *shape) {
    int nc = self->n_classes;
    if (shape == NULL || offsets == NULL || head < 0 || tail < 0 || !(temperature > 0) ||
        !isfinite(temperature) || !(dense_weight > 0) || !isfinite(dense_weight)) {
        PyErr_SetString(PyExc_ValueError, "Kernel: bias needs offsets, shape, head, tail, a temperature and a dense weight");
        return -1;
    }
    self->bias = PyMem_Malloc((size_t)nc * sizeof(double));
    self->offsets = PyMem_Malloc((size_t)nc * sizeof(double));
    self->logits = PyMem_Malloc((size_t)nc * sizeof(double));
    self->dsums = PyMem_Malloc((size_t)nc * sizeof(double));
    if (!self->bias || !self->offsets || !self->logits || !self->dsums) {
        PyErr_NoMemory();
        return -1;
    }
    if (read_doubles(bias, self->bias, nc, "bias") < 0 || read_doubles(offsets, self->offsets, nc, "offsets") < 0)
        return -1;
    self->temperature = temperature, self->dense_weight = dense_weight;
    self->head = head, self->tail = tail;
    PyObject *v;
    int n;
    if (!(v = shape_item(shape, "word_edges")) || (n = read_sizes(v, self->word_edges, MAX_EDGES, "word_edges")) < 0) return -1;
    self->n_word_edges = n;
    if (!(v = shape_item(shape, "word_index")) || read_sizes(v, self->word_index, MAX_EDGES + 1, "word_index") != n + 1) goto bad;
    if (!(v = shape_item(shape, "line_edges")) || (n = read_sizes(v, self->line_edges, MAX_EDGES, "line_edges")) < 0) return -1;
    self->n_line_edges = n;
    if (!(v = shape_item(shape, "line_index")) || read_sizes(v, self->line_index, MAX_EDGES + 1, "line_index") != n + 1) goto bad;
    if (!(v = shape_item(shape, "code_min_lines")) || (self->code_min_lines = PyLong_AsSsize_t(v)) == -1) goto bad;
    if (!(v = shape_item(shape, "code_rows")) || (self->code_rows = PyLong_AsSsize_t(v)) == -1) goto bad;
    if (!(v = shape_item(shape, "code_cuts"))) return -1;
    n = (int)PySequence_Size(v);
    if (n < 0 || n > MAX_EDGES || read_doubles(v, self->code_cuts, n, "code_cuts") < 0) goto bad;
    self->n_code_cuts = n;
    if (!(v = shape_item(shape, "code_index")) || read_sizes(v, self->code_index, MAX_EDGES + 1, "code_index") != n + 1) goto bad;
    if (!(v = shape_item(shape, "ends"))) return -1;
    if (!PyUnicode_Check(v) || PyUnicode_GET_LENGTH(v) > MAX_EDGES) goto bad;
    self->n_ends = (int)PyUnicode_GET_LENGTH(v);
    for (int i = 0; i < self->n_ends; i++) self->ends[i] = PyUnicode_READ_CHAR(v, i);
    if (!(v = shape_item(shape, "ends_index")) || read_sizes(v, self->ends_index, MAX_EDGES, "ends_index") != self->n_ends) goto bad;
    if (!(v = shape_item(shape, "word_cjk")) || !PyTuple_Check(v) || PyTuple_GET_SIZE(v) > MAX_CJK) goto bad;
    self->n_word_cjk = (int)PyTuple_GET_SIZE(v);
    for (int i = 0; i < self->n_word_cjk; i++) {
        unsigned long lo, hi;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(v, i), "kk", &lo, &hi)) return -1;
        self->word_cjk[i][0] = (Py_UCS4)lo, self->word_cjk[i][1] = (Py_UCS4)hi;
    }
    if (self->code_rows < 0 || check_indices(self, self->word_index, self->n_word_edges + 1) < 0 ||
        check_indices(self, self->line_index, self->n_line_edges + 1) < 0 ||
        check_indices(self, self->code_index, self->n_code_cuts + 1) < 0 ||
        check_indices(self, self->ends_index, self->n_ends) < 0)
        return -1;
    self->decides = 1;
    return 0;
bad:
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "Kernel: a shape parameter of the wrong form");
    return -1;
}

static int Kernel_init(Kernel *self, PyObject *args, PyObject *kwds) {
    static char *names[] = {"chars", "words", "bigrams", "weights", "n_classes", "char_sizes",
                            "max_tokens", "tail_tokens", "cjk", "bias", "temperature", "offsets",
                            "dense_weight", "head", "tail", "shape", "rule_index", "classes",
                            "prediction", "vocabulary", "counts", NULL};
    PyObject *lists[3], *sizes, *cjk, *bias = NULL, *offsets = NULL, *shape = NULL;
    PyObject *rule_index = NULL, *classes = NULL, *prediction = NULL, *vocabulary = NULL, *counts = NULL;
    Py_buffer weights;
    int n_classes;
    Py_ssize_t max_tokens, tail_tokens, head = 0, tail = 0;
    double temperature = 1.0, dense_weight = 1.0;
    if (self->slots != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Kernel is initialised once");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOy*iO!nnO!|OdOdnnO!O!O!O!O!O!", names, &lists[0], &lists[1],
                                     &lists[2], &weights, &n_classes, &PyTuple_Type, &sizes, &max_tokens,
                                     &tail_tokens, &PyTuple_Type, &cjk, &bias, &temperature, &offsets,
                                     &dense_weight, &head, &tail, &PyDict_Type, &shape, &PyDict_Type,
                                     &rule_index, &PyTuple_Type, &classes, &PyType_Type, &prediction,
                                     &PyUnicode_Type, &vocabulary, &PyTuple_Type, &counts))
        return -1;
    int listed = PyList_Check(lists[0]) && PyList_Check(lists[1]) && PyList_Check(lists[2]);
    int blob = vocabulary != NULL && counts != NULL && PyTuple_GET_SIZE(counts) == 3 && lists[0] == Py_None &&
               lists[1] == Py_None && lists[2] == Py_None;
    if (listed == blob || (listed && (vocabulary != NULL || counts != NULL))) {
        PyErr_SetString(PyExc_TypeError, "vocabulary: three lists of str, or a str and three counts");
        PyBuffer_Release(&weights);
        return -1;
    }
    if (classes != NULL && PyTuple_GET_SIZE(classes) != n_classes) {
        PyErr_SetString(PyExc_ValueError, "classes: one name per class");
        PyBuffer_Release(&weights);
        return -1;
    }
    if (prediction != NULL && !PyType_IsSubtype((PyTypeObject *)prediction, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "prediction: a tuple type (label, confidence, probabilities)");
        PyBuffer_Release(&weights);
        return -1;
    }
    Py_XINCREF(rule_index), self->rule_index = rule_index;
    Py_XINCREF(classes), self->classes = classes;
    Py_XINCREF(prediction), self->prediction = prediction;
    int ok = -1;
    /* every key of the three kinds in one pool of code points (the vocabulary str as it is, or
     * the lists' keys one after another), each key by its start and length */
    Py_ssize_t n_keys = 0, pool_len = 0, n_long = 0, n_small = 0, n_short = 0, kind_n[3];
    if (blob) {
        for (int k = 0; k < 3; k++) {
            kind_n[k] = PyLong_AsSsize_t(PyTuple_GET_ITEM(counts, k));
            if (kind_n[k] < 0 || kind_n[k] >= INT32_MAX) {
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "counts: three counts of keys");
                goto done;
            }
            n_keys += kind_n[k];
        }
        pool_len = PyUnicode_GET_LENGTH(vocabulary);
        if (pool_len >= (Py_ssize_t)UINT32_MAX) {
            PyErr_SetString(PyExc_ValueError, "Kernel: parameters out of range");
            goto done;
        }
        self->pool = PyUnicode_AsUCS4Copy(vocabulary); /* PyMem_Malloc'd, as the lists' pool */
    } else {
        for (int k = 0; k < 3; k++) {
            kind_n[k] = PyList_GET_SIZE(lists[k]);
            n_keys += kind_n[k];
            for (Py_ssize_t i = 0; i < kind_n[k]; i++) {
                PyObject *s = PyList_GET_ITEM(lists[k], i);
                if (!PyUnicode_Check(s)) {
                    PyErr_SetString(PyExc_TypeError, "vocabulary keys must be str");
                    goto done;
                }
                pool_len += PyUnicode_GET_LENGTH(s);
            }
        }
        if (pool_len >= (Py_ssize_t)UINT32_MAX) {
            PyErr_SetString(PyExc_ValueError, "Kernel: parameters out of range");
            goto done;
        }
        self->pool = PyMem_Malloc((size_t)(pool_len + 1) * sizeof(Py_UCS4));
    }
    self->key_start = PyMem_Malloc((size_t)(n_keys + 1) * sizeof(uint32_t));
    self->key_len = PyMem_Malloc((size_t)(n_keys + 1) * sizeof(uint32_t));
    if (!self->pool || !self->key_start || !self->key_len) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t index = 0;
    if (blob) {
        Py_ssize_t at = 0;
        for (int k = 0; k < 3; k++) {
            for (Py_ssize_t i = 0; i < kind_n[k]; i++, index++) {
                if (at > pool_len) {
                    PyErr_SetString(PyExc_ValueError, "vocabulary: fewer keys than counts");
                    goto done;
                }
                Py_ssize_t end = at;
                while (end < pool_len && self->pool[end] != 0) end++;
                self->key_start[index] = (uint32_t)at, self->key_len[index] = (uint32_t)(end - at);
                at = end + 1;
            }
            self->kind_end[k] = index;
        }
        self->pool_len = pool_len;
    } else {
        for (int k = 0; k < 3; k++) {
            for (Py_ssize_t i = 0; i < kind_n[k]; i++, index++) {
                PyObject *s = PyList_GET_ITEM(lists[k], i);
                Py_ssize_t n = PyUnicode_GET_LENGTH(s);
                if (n && !PyUnicode_AsUCS4(s, self->pool + self->pool_len, n, 0)) goto done;
                self->key_start[index] = (uint32_t)self->pool_len, self->key_len[index] = (uint32_t)n;
                self->pool_len += n;
            }
            self->kind_end[k] = index;
        }
    }
    /* how many keys each table holds: n_long the general one, n_small and n_short the packed ones */
    for (Py_ssize_t i = 0; i < n_keys; i++) {
        Py_ssize_t len = self->key_len[i];
        int chars = i < self->kind_end[0];
        n_long += !chars || len > 4;
        if (chars && len <= 4) {
            if (small_key(self->pool + self->key_start[i], len) != 0)
                n_small++;
            else
                n_short++;
        }
    }
    if (n_classes < 1 || weights.itemsize != 1 || weights.len % ((Py_ssize_t)sizeof(float) * n_classes)) {
        PyErr_SetString(PyExc_ValueError, "weights: float32 bytes, class-major");
        goto done;
    }
    Py_ssize_t size = weights.len / (Py_ssize_t)sizeof(float) / n_classes;
    if (size < n_keys || n_keys >= INT32_MAX || PyTuple_GET_SIZE(sizes) > MAX_SIZES || PyTuple_GET_SIZE(cjk) > MAX_CJK ||
        max_tokens < tail_tokens || tail_tokens < 0) {
        PyErr_SetString(PyExc_ValueError, "Kernel: parameters out of range");
        goto done;
    }
    self->n_sizes = (int)PyTuple_GET_SIZE(sizes);
    for (int i = 0; i < self->n_sizes; i++) {
        long v = PyLong_AsLong(PyTuple_GET_ITEM(sizes, i));
        if (v < 1 || v > 64) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "char_sizes: 1 to 64");
            goto done;
        }
        self->sizes[i] = (int)v;
    }
    self->n_cjk = (int)PyTuple_GET_SIZE(cjk);
    for (int i = 0; i < self->n_cjk; i++) {
        unsigned long lo, hi;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(cjk, i), "kk", &lo, &hi)) goto done;
        self->cjk[i][0] = (Py_UCS4)lo, self->cjk[i][1] = (Py_UCS4)hi;
    }
    self->cjk_min = 0x110000;
    for (int i = 0; i < self->n_cjk; i++)
        if (self->cjk[i][0] < self->cjk_min) self->cjk_min = self->cjk[i][0];
    self->max_tokens = max_tokens, self->tail_tokens = tail_tokens;
    self->n_classes = n_classes;
    self->n_index = size;
    size_t cap = 16;
    while (cap < (size_t)n_long * 2 + 16) cap <<= 1;
    self->mask = cap - 1;
    self->slots = PyMem_Malloc(cap * sizeof(Slot));
    size_t scap = 16;
    while (scap < (size_t)n_short * 2 + 16) scap <<= 1;
    self->smask = scap - 1;
    self->shorts = PyMem_Malloc(scap * sizeof(Short));
    size_t qcap = 16;
    int qbits = 4;
    while (qcap < (size_t)n_small * 2 + 16) qcap <<= 1, qbits++;
    self->qmask = qcap - 1, self->qshift = 64 - qbits;
    self->smalls = PyMem_Malloc(qcap * sizeof(Small));
    self->weights = PyMem_Malloc((size_t)(size * n_classes + 1) * sizeof(float));
    self->stamp = PyMem_Calloc((size_t)size + 1, sizeof(uint32_t));
    self->sums = PyMem_Malloc((size_t)n_classes * sizeof(double));
    if (!self->slots || !self->shorts || !self->smalls || !self->weights ||
        !self->stamp || !self->sums) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t i = 0; i < cap; i++) self->slots[i].index = -1;
    for (size_t i = 0; i < scap; i++) self->shorts[i].index = -1;
    for (size_t i = 0; i < qcap; i++) self->smalls[i].index = -1;
    const float *w = (const float *)weights.buf; /* native order: array("f").tobytes() */
    for (Py_ssize_t k = 0; k < n_classes; k++)
        for (Py_ssize_t i = 0; i < size; i++) self->weights[i * n_classes + k] = w[k * size + i];
    for (Py_ssize_t i = 0; i < n_keys; i++) {
        uint32_t q = i < self->kind_end[0] ? small_key(self->pool + self->key_start[i], self->key_len[i]) : 0;
        if (q) {
            small_insert(self, q, i);
        } else if (i < self->kind_end[0] && self->key_len[i] <= 4) {
            uint64_t a;
            uint32_t b;
            pack(self->pool + self->key_start[i], self->key_len[i], &a, &b);
            short_insert(self->shorts, self->smask, a, b, i);
        } else {
            insert(self, kind_of(self, i), i);
        }
    }
    self->epoch = 1;
    if (bias != NULL && bias != Py_None && decision_init(self, bias, temperature, offsets, dense_weight, head, tail, shape) < 0)
        goto done;
    ok = 0;
done:
    PyBuffer_Release(&weights);
    return ok;
}

static Py_ssize_t word_end(const Kernel *self, const Py_UCS4 *t, Py_ssize_t i, Py_ssize_t n) {
    while (i < n && is_word(t[i]) && !is_cjk(self, t[i])) i++;
    return i;
}

static Py_ssize_t punct_end(const Py_UCS4 *t, Py_ssize_t i, Py_ssize_t n) {
    while (i < n && !is_word(t[i]) && !is_space(t[i])) i++;
    return i;
}

static void next_epoch(Kernel *self) {
    if (++self->epoch == 0) { /* wrapped: forget every stamp */
        memset(self->stamp, 0, (size_t)(self->n_index + 1) * sizeof(uint32_t));
        self->epoch = 1;
    }
}

/* The n-grams of the region in self->text[0..n): their weights summed into self->sums, how
 * many distinct vocabulary entries into *count (a new epoch: each entry counted once). */
static int sum_grams(Kernel *self, Py_ssize_t n, Py_ssize_t *count_out) {
    if (grow((void **)&self->tok, &self->tok_cap, 2 * n + 2, sizeof(Py_ssize_t)) < 0) return -1;
    const Py_UCS4 *t = self->text;
    next_epoch(self);
    for (int k = 0; k < self->n_classes; k++) self->sums[k] = 0.0;
    Py_ssize_t count = 0;
    /* character n-grams: packed and hashed first, then looked up with the slots a few
     * n-grams ahead already on their way from memory; then their weights, likewise */
    /* (ph also holds the tokens' hashes: at least one per character) */
    if (grow_grams(self, (n + 1) * (self->n_sizes > 0 ? self->n_sizes : 1)) < 0) return -1;
    Py_ssize_t m = 0, mq = 0;
    for (int s = 0; s < self->n_sizes; s++) {
        Py_ssize_t size = self->sizes[s];
        for (Py_ssize_t i = 0; i + size <= n; i++) {
            if (size > 4) {
                add(self, lookup(self, KIND_CHAR, t + i, size), &count);
                continue;
            }
            uint32_t q = small_key(t + i, size);
            if (q) {
                self->qk[mq] = q, self->qh[mq] = small_slot(self, q);
                mq++;
                continue;
            }
            pack(t + i, size, &self->pa[m], &self->pb[m]);
            self->ph[m] = short_hash(self->pa[m], self->pb[m]);
            m++;
        }
    }
    const Small *smalls = self->smalls;
    Py_ssize_t nhits = 0;
    for (Py_ssize_t j = 0; j < mq; j++) {
        if (j + AHEAD < mq) PREFETCH(&smalls[self->qh[j + AHEAD]]);
        uint32_t q = self->qk[j];
        size_t i = self->qh[j];
        /* at a load under a half the first slot is this key or empty: no branch to mispredict */
        while (smalls[i].index >= 0 && smalls[i].key != q) i = (i + 1) & self->qmask;
        self->hits[nhits] = smalls[i].index;
        nhits += smalls[i].index >= 0;
    }
    const Short *shorts = self->shorts;
    for (Py_ssize_t j = 0; j < m; j++) {
        if (j + AHEAD < m) PREFETCH(&shorts[self->ph[j + AHEAD] & self->smask]);
        uint64_t a = self->pa[j];
        uint32_t b = self->pb[j];
        for (size_t i = (size_t)self->ph[j] & self->smask;; i = (i + 1) & self->smask) {
            if (shorts[i].index < 0) break;
            if (shorts[i].a == a && shorts[i].b == b) {
                self->hits[nhits++] = shorts[i].index;
                break;
            }
        }
    }
    for (Py_ssize_t j = 0; j < nhits; j++) {
        if (j + AHEAD < nhits) {
            PREFETCH(&self->stamp[self->hits[j + AHEAD]]);
            PREFETCH(&self->weights[self->hits[j + AHEAD] * self->n_classes]);
        }
        add(self, self->hits[j], &count);
    }
    /* tokens, as TOKEN_PATTERN's findall */
    Py_ssize_t ntok = 0, *tok = self->tok;
    for (Py_ssize_t i = 0; i < n;) {
        Py_UCS4 c = t[i];
        Py_ssize_t end;
        if (is_cjk(self, c))
            end = i + 1;
        else if (is_word(c))
            end = word_end(self, t, i, n);
        else if (!is_space(c))
            end = punct_end(t, i, n);
        else {
            i++;
            continue;
        }
        tok[2 * ntok] = i, tok[2 * ntok + 1] = end - i, ntok++;
        i = end;
    }
    if (ntok > self->max_tokens) { /* the first max - tail tokens and the last tail ones */
        Py_ssize_t head = self->max_tokens - self->tail_tokens;
        memmove(tok + 2 * head, tok + 2 * (ntok - self->tail_tokens),
                (size_t)(2 * self->tail_tokens) * sizeof(Py_ssize_t));
        ntok = head + self->tail_tokens;
    }
    /* each token hashed once (into ph, free after the character n-grams): words, then bigrams */
    uint64_t *th = self->ph;
    for (Py_ssize_t j = 0; j < ntok; j++) {
        const Py_UCS4 *w = t + tok[2 * j];
        th[j] = fnv(w, tok[2 * j + 1]);
        add(self, lookup_hashed(self, finish(th[j], KIND_WORD), KIND_WORD, w, tok[2 * j + 1]), &count);
    }
    for (Py_ssize_t j = 0; j + 1 < ntok; j++) {
        Py_ssize_t h = lookup_pair(self, pair_hash(th[j], th[j + 1]), t + tok[2 * j], tok[2 * j + 1],
                                   t + tok[2 * j + 2], tok[2 * j + 3]);
        add(self, h, &count);
    }
    *count_out = count;
    return 0;
}

/* A str into self->text as UCS4; returns its length, or -1 */
static Py_ssize_t load_text(Kernel *self, PyObject *s) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    if (grow((void **)&self->text, &self->text_cap, n + 1, sizeof(Py_UCS4)) < 0) return -1;
    if (n && !PyUnicode_AsUCS4(s, self->text, n, 0)) return -1;
    return n;
}

/* features.region() of an ASCII text, into self->text: its head and tail (joined by a line
 * break) when it is longer than both, lower-cased, digits 1-9 folded to 0, NUL made a space */
static Py_ssize_t ascii_region(Kernel *self, PyObject *text) {
    Py_ssize_t len = PyUnicode_GET_LENGTH(text);
    const Py_UCS1 *src = PyUnicode_1BYTE_DATA(text);
    int cut = len > self->head + self->tail;
    Py_ssize_t n = cut ? self->head + 1 + self->tail : len;
    if (grow((void **)&self->text, &self->text_cap, n + 1, sizeof(Py_UCS4)) < 0) return -1;
    Py_UCS4 *t = self->text;
    if (cut) {
        for (Py_ssize_t i = 0; i < self->head; i++) t[i] = src[i];
        t[self->head] = '\n';
        for (Py_ssize_t i = 0; i < self->tail; i++) t[self->head + 1 + i] = src[len - self->tail + i];
    } else {
        for (Py_ssize_t i = 0; i < n; i++) t[i] = src[i];
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = t[i];
        if (c >= 'A' && c <= 'Z') t[i] = c + 32;
        else if (c >= '1' && c <= '9') t[i] = '0';
        else if (c == 0) t[i] = ' ';
    }
    return n;
}

/* The region of `text`: made here for ASCII text, else the str `region` (features.region) */
static Py_ssize_t load_region(Kernel *self, PyObject *text, PyObject *region) {
    if (region == Py_None) {
        if (!PyUnicode_IS_ASCII(text)) {
            PyErr_SetString(PyExc_ValueError, "the region of a text that is not ASCII is made in Python");
            return -1;
        }
        return ascii_region(self, text);
    }
    if (!PyUnicode_Check(region)) {
        PyErr_SetString(PyExc_TypeError, "region: a str or None");
        return -1;
    }
    return load_text(self, region);
}

static int in_ranges(Py_UCS4 c, const Py_UCS4 (*ranges)[2], int n) {
    for (int i = 0; i < n; i++)
        if (c >= ranges[i][0] && c <= ranges[i][1]) return 1;
    return 0;
}

static Py_ssize_t bucket(Py_ssize_t value, const Py_ssize_t *edges, int n) {
    for (int i = 0; i < n; i++)
        if (value <= edges[i]) return i;
    return n;
}

/* features._CODE_LINE.match on the line t[s..e), which is not blank (it has a character
 * that is not white space at `p`, the first, and at `q`, the last):
 *   (?:\t| {4,}+).*\S      a tab or four spaces first (then the line's non-blank character)
 *   .*[;{}]\s*$            the last character that is not white space is ; { or }
 *   \s*+[#/]{1,2} ?\w      one or two of # / after the blanks, a space or not, a word character
 *   \s*+[<>$]{1,3}         one to three of < > $ after the blanks, then a space */
#define AT(i) PyUnicode_READ(kind, data, (i))
static int code_line(int kind, const void *data, Py_ssize_t s, Py_ssize_t e, Py_ssize_t p, Py_ssize_t q) {
    if (AT(s) == '\t') return 1;
    if (e - s >= 4 && AT(s) == ' ' && AT(s + 1) == ' ' && AT(s + 2) == ' ' && AT(s + 3) == ' ') return 1;
    Py_UCS4 last = AT(q);
    if (last == ';' || last == '{' || last == '}') return 1;
    Py_UCS4 c = AT(p);
    if (c == '#' || c == '/') {
        /* two of them, then a space and a word character or a word character; else one */
        if (p + 1 < e && (AT(p + 1) == '#' || AT(p + 1) == '/')) {
            if (p + 3 < e && AT(p + 2) == ' ' && is_word(AT(p + 3))) return 1;
            if (p + 2 < e && is_word(AT(p + 2))) return 1;
        }
        if (p + 2 < e && AT(p + 1) == ' ' && is_word(AT(p + 2))) return 1;
        if (p + 1 < e && is_word(AT(p + 1))) return 1;
        return 0;
    }
    Py_ssize_t r = p;
    while (r < e && r - p < 4 && (AT(r) == '<' || AT(r) == '>' || AT(r) == '$')) r++;
    return r > p && r - p <= 3 && r < e && AT(r) == ' ';
}

/* Add a dense feature's index (skipping -1 and one already there) to self->dense */
static void add_dense(Kernel *self, Py_ssize_t index, Py_ssize_t *nd) {
    if (index < 0 || index >= self->n_index || self->stamp[index] == self->epoch) return;
    self->stamp[index] = self->epoch;
    self->dense[(*nd)++] = index;
}

static int add_indices(Kernel *self, PyObject *seq, Py_ssize_t *nd, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (fast == NULL) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (grow((void **)&self->dense, &self->dense_cap, *nd + n + 8, sizeof(Py_ssize_t)) < 0) {
        Py_DECREF(fast);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(fast, i);
        if (PyTuple_Check(item) && self->rule_index != NULL) {
            /* a Signal: its rule's feature, where the model has one */
            if (PyTuple_GET_SIZE(item) < 1) continue;
            PyObject *found = PyDict_GetItemWithError(self->rule_index, PyTuple_GET_ITEM(item, 0));
            if (found == NULL) {
                if (PyErr_Occurred()) {
                    Py_DECREF(fast);
                    return -1;
                }
                continue;
            }
            item = found;
        }
        Py_ssize_t v = PyLong_AsSsize_t(item);
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        add_dense(self, v, nd);
    }
    Py_DECREF(fast);
    return 0;
}

/* features.dense_features(): the rules' indices, then the shape (features.shape), then the
 * votes' indices, each feature once, into self->dense (in the epoch of the n-grams: dense
 * indices are never n-gram indices). The region is in self->text[0..n). */
static int dense_of(Kernel *self, PyObject *text, Py_ssize_t n, Py_ssize_t words, Py_ssize_t lines,
                    PyObject *rules, PyObject *votes, Py_ssize_t *nd) {
    *nd = 0;
    if (add_indices(self, rules, nd, "rules: a sequence of indices or signals") < 0) return -1;
    if (grow((void **)&self->dense, &self->dense_cap, *nd + 8, sizeof(Py_ssize_t)) < 0) return -1;
    /* words: CJK and Hangul characters of the region count one word for two */
    Py_ssize_t cjk = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (self->text[i] >= 0x80 && in_ranges(self->text[i], (const Py_UCS4 (*)[2])self->word_cjk, self->n_word_cjk)) cjk++;
    add_dense(self, self->word_index[bucket(words + cjk / 2, self->word_edges, self->n_word_edges)], nd);
    add_dense(self, self->line_index[bucket(lines, self->line_edges, self->n_line_edges)], nd);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t len = PyUnicode_GET_LENGTH(text);
    if (lines >= self->code_min_lines) {
        Py_ssize_t filled = 0, code = 0, s = 0;
        for (Py_ssize_t row = 0; row < self->code_rows; row++) {
            Py_ssize_t e = s, p = -1, q = -1;
            for (; e < len; e++) {
                Py_UCS4 c = AT(e);
                if (c == '\n') break;
                if (!is_space(c)) {
                    if (p < 0) p = e;
                    q = e;
                }
            }
            if (p >= 0) {
                filled++;
                code += code_line(kind, data, s, e, p, q);
            }
            if (e >= len) break;
            s = e + 1;
        }
        if (filled) {
            double share = (double)code / (double)filled;
            int b = 0;
            while (b < self->n_code_cuts && !(share >= self->code_cuts[b])) b++;
            add_dense(self, self->code_index[b], nd);
        }
    }
    Py_ssize_t e = len;
    while (e > 0 && is_space(AT(e - 1))) e--;
    if (e > 0) {
        Py_UCS4 last = AT(e - 1);
        for (int i = 0; i < self->n_ends; i++)
            if (last == self->ends[i]) add_dense(self, self->ends_index[i], nd);
    }
    return add_indices(self, votes, nd, "votes: a sequence of indices");
}
#undef AT

/* Python's sum() of floats, from 0: in order, and from 3.12 with Neumaier's compensation */
typedef struct {
    double sum, c;
} PySum;

static inline void pysum_add(PySum *s, double x) {
#if PY_VERSION_HEX >= 0x030C0000
    double t = s->sum + x;
    if (fabs(s->sum) >= fabs(x))
        s->c += (s->sum - t) + x;
    else
        s->c += (x - t) + s->sum;
    s->sum = t;
#else
    s->sum += x;
#endif
}

static inline double pysum_value(const PySum *s) {
#if PY_VERSION_HEX >= 0x030C0000
    if (s->c != 0.0 && isfinite(s->c)) return s->sum + s->c;
#endif
    return s->sum;
}

static PyObject *Kernel_grams(Kernel *self, PyObject *arg) {
    if (self->slots == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Kernel not initialised");
        return NULL;
    }
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "grams() takes a str");
        return NULL;
    }
    Py_ssize_t n = load_text(self, arg), count;
    if (n < 0 || sum_grams(self, n, &count) < 0) return NULL;
    PyObject *sums = PyTuple_New(self->n_classes);
    if (sums == NULL) return NULL;
    for (int k = 0; k < self->n_classes; k++) {
        PyObject *v = PyFloat_FromDouble(self->sums[k]);
        if (v == NULL) {
            Py_DECREF(sums);
            return NULL;
        }
        PyTuple_SET_ITEM(sums, k, v);
    }
    return Py_BuildValue("(Nn)", sums, count);
}

static int ready(const Kernel *self) {
    if (self->slots == NULL || !self->decides) {
        PyErr_SetString(PyExc_RuntimeError, "Kernel made without the decision's parameters (bias, shape)");
        return 0;
    }
    return 1;
}

/* predict / dense: (text, region or None, words, lines, rules, votes) */
static int prepare(Kernel *self, PyObject *args, PyObject **text, Py_ssize_t *n, Py_ssize_t *nd, int grams,
                   Py_ssize_t *count) {
    PyObject *region, *rules, *votes;
    Py_ssize_t words, lines;
    if (!ready(self) || !PyArg_ParseTuple(args, "UOnnOO", text, &region, &words, &lines, &rules, &votes)) return -1;
    if ((*n = load_region(self, *text, region)) < 0) return -1;
    if (grams) {
        if (sum_grams(self, *n, count) < 0) return -1;
    } else {
        next_epoch(self);
    }
    return dense_of(self, *text, *n, words, lines, rules, votes, nd);
}

static PyObject *Kernel_dense(Kernel *self, PyObject *args) {
    PyObject *text;
    Py_ssize_t n, nd;
    if (prepare(self, args, &text, &n, &nd, 0, NULL) < 0) return NULL;
    PyObject *out = PyList_New(nd);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < nd; i++) {
        PyObject *v = PyLong_FromSsize_t(self->dense[i]);
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, v);
    }
    return out;
}

static PyObject *Kernel_region(Kernel *self, PyObject *arg) {
    if (!ready(self)) return NULL;
    if (!PyUnicode_Check(arg) || !PyUnicode_IS_ASCII(arg)) {
        PyErr_SetString(PyExc_TypeError, "region() takes an ASCII str");
        return NULL;
    }
    Py_ssize_t n = ascii_region(self, arg);
    if (n < 0) return NULL;
    return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, self->text, n);
}

/* Model.combine (mean pooling) and Model.prediction: (index of the class, probabilities) */
static PyObject *Kernel_predict(Kernel *self, PyObject *args) {
    PyObject *text;
    Py_ssize_t n, nd, count;
    if (prepare(self, args, &text, &n, &nd, 1, &count) < 0) return NULL;
    int nc = self->n_classes;
    for (int k = 0; k < nc; k++) {
        PySum s = {0.0, 0.0};
        for (Py_ssize_t i = 0; i < nd; i++) pysum_add(&s, (double)self->weights[self->dense[i] * nc + k]);
        self->dsums[k] = pysum_value(&s);
    }
    double m = (double)count + self->dense_weight * (double)nd;
    double gram_scale = 0.0, dense_scale = 0.0;
    if (m != 0.0) gram_scale = 1.0 / m, dense_scale = self->dense_weight / m;
    double *logits = self->logits;
    for (int k = 0; k < nc; k++) {
        double g = gram_scale * self->sums[k];
        double d = dense_scale * self->dsums[k];
        logits[k] = self->bias[k] + g + d;
    }
    double top = logits[0];
    for (int k = 1; k < nc; k++)
        if (logits[k] > top) top = logits[k];
    for (int k = 0; k < nc; k++) logits[k] = (logits[k] - top) / self->temperature + self->offsets[k];
    int best = 0;
    for (int k = 1; k < nc; k++)
        if (logits[k] > logits[best]) best = k; /* ties: the class listed first */
    top = logits[best];
    PySum total = {0.0, 0.0};
    for (int k = 0; k < nc; k++) {
        self->dsums[k] = exp(logits[k] - top);
        pysum_add(&total, self->dsums[k]);
    }
    double sum = pysum_value(&total);
    PyObject *probs = PyTuple_New(nc);
    if (probs == NULL) return NULL;
    for (int k = 0; k < nc; k++) {
        PyObject *v = PyFloat_FromDouble(self->dsums[k] / sum);
        if (v == NULL) {
            Py_DECREF(probs);
            return NULL;
        }
        PyTuple_SET_ITEM(probs, k, v);
    }
    if (self->prediction == NULL || self->classes == NULL) return Py_BuildValue("(iN)", best, probs);
    /* Prediction(label, confidence, {class: probability}) */
    PyObject *table = PyDict_New(), *fields = NULL, *one = NULL, *out = NULL;
    if (table == NULL) goto end;
    for (int k = 0; k < nc; k++)
        if (PyDict_SetItem(table, PyTuple_GET_ITEM(self->classes, k), PyTuple_GET_ITEM(probs, k)) < 0) goto end;
    fields = PyTuple_Pack(3, PyTuple_GET_ITEM(self->classes, best), PyTuple_GET_ITEM(probs, best), table);
    if (fields == NULL || (one = PyTuple_Pack(1, fields)) == NULL) goto end;
    out = PyTuple_Type.tp_new((PyTypeObject *)self->prediction, one, NULL); /* tuple.__new__(cls, fields) */
end:
    Py_XDECREF(one);
    Py_XDECREF(fields);
    Py_XDECREF(table);
    Py_DECREF(probs);
    return out;
}

static PyMethodDef Kernel_methods[] = {
    {"grams", (PyCFunction)Kernel_grams, METH_O,
     "grams(region) -> (per-class weight sums, number of vocabulary n-grams present)"},
    {"predict", (PyCFunction)Kernel_predict, METH_VARARGS,
     "predict(text, region or None, words, lines, rules, votes) -> Prediction, or (class index, probabilities)"},
    {"dense", (PyCFunction)Kernel_dense, METH_VARARGS,
     "dense(text, region or None, words, lines, rules, votes) -> the dense features' indices"},
    {"region", (PyCFunction)Kernel_region, METH_O, "region(ascii text) -> features.region(text)"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject KernelType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "turnlens.learn._scorer.Kernel",
    .tp_basicsize = sizeof(Kernel),
    .tp_dealloc = (destructor)Kernel_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One model's n-gram vocabulary and weights, scored in C.",
    .tp_methods = Kernel_methods,
    .tp_init = (initproc)Kernel_init,
    .tp_new = PyType_GenericNew,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_scorer", "The compiled n-gram scorer of TurnLens's learned model.", -1, NULL, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__scorer(void) {
    for (Py_UCS4 c = 0; c < 128; c++)
        ascii_class[c] = (unsigned char)((c == '_' || Py_UNICODE_ISALNUM(c) ? C_WORD : 0) |
                                         (Py_UNICODE_ISSPACE(c) ? C_SPACE : 0));
    if (PyType_Ready(&KernelType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&KernelType);
    if (PyModule_AddObject(m, "Kernel", (PyObject *)&KernelType) < 0) {
        Py_DECREF(&KernelType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
