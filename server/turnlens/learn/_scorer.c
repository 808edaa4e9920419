/* The n-gram half of the learned model's linear pass, compiled (optional).
 *
 * Kernel(chars, words, bigrams, weights, n_classes, char_sizes, max_tokens, tail_tokens, cjk)
 * holds one model's n-gram vocabulary in an open-addressing table and its weights
 * feature-major. Kernel.grams(region) reads the text that turnlens.learn.features.region()
 * made, finds its character n-grams, its tokens (as features._TOKEN: one CJK character, a
 * run of other word characters, or a run of punctuation) and their bigrams, keeps each
 * vocabulary entry once, and returns (per-class weight sums, how many entries were present).
 * The rule and shape features, the pooling and the softmax stay in Python (scorer.py), and
 * turnlens.learn.native checks that the feature definitions are the ones this file follows.
 * Without a C compiler this file is simply not built: the pure-Python scorer gives the same
 * answers (tests/learn/test_scorer.py).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

enum { KIND_CHAR = 0, KIND_WORD = 1, KIND_BIGRAM = 2, MAX_SIZES = 8, MAX_CJK = 16, AHEAD = 8 };

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
    Py_UCS4 *key;
    Py_ssize_t key_cap;
    double *sums;
    uint64_t *pa; /* per character n-gram of the text: packed key, hash; then the hits */
    uint32_t *pb;
    uint64_t *ph;
    Py_ssize_t *hits;
    Py_ssize_t p_cap;
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

static uint64_t hash_of(int kind, const Py_UCS4 *s, Py_ssize_t n) {
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)(kind + 1);
    for (Py_ssize_t i = 0; i < n; i++) {
        h ^= (uint64_t)s[i];
        h *= 1099511628211ULL;
    }
    return h ^ (h >> 29);
}

static int kind_of(const Kernel *self, Py_ssize_t index) {
    return index < self->kind_end[0] ? KIND_CHAR : index < self->kind_end[1] ? KIND_WORD : KIND_BIGRAM;
}

static int same(const Kernel *self, Py_ssize_t index, int kind, const Py_UCS4 *s, Py_ssize_t n) {
    return kind_of(self, index) == kind && (Py_ssize_t)self->key_len[index] == n &&
           memcmp(self->pool + self->key_start[index], s, (size_t)n * sizeof(Py_UCS4)) == 0;
}

static Py_ssize_t lookup(const Kernel *self, int kind, const Py_UCS4 *s, Py_ssize_t n) {
    uint64_t h = hash_of(kind, s, n);
    uint32_t tag = (uint32_t)(h >> 32);
    for (size_t i = (size_t)h & self->mask;; i = (i + 1) & self->mask) {
        const Slot *slot = &self->slots[i];
        if (slot->index < 0) return -1;
        if (slot->tag == tag && same(self, slot->index, kind, s, n)) return slot->index;
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

/* the four per-n-gram scratch arrays, grown together */
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
    if (!pa || !pb || !ph || !hits) {
        PyErr_NoMemory();
        return -1;
    }
    self->p_cap = (Py_ssize_t)n;
    return 0;
}

static void Kernel_dealloc(Kernel *self) {
    PyMem_Free(self->slots);
    PyMem_Free(self->shorts);
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
    PyMem_Free(self->key);
    PyMem_Free(self->sums);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Kernel_init(Kernel *self, PyObject *args, PyObject *kwds) {
    static char *names[] = {"chars", "words", "bigrams", "weights", "n_classes", "char_sizes",
                            "max_tokens", "tail_tokens", "cjk", NULL};
    PyObject *lists[3], *sizes, *cjk;
    Py_buffer weights;
    int n_classes;
    Py_ssize_t max_tokens, tail_tokens;
    if (self->slots != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Kernel is initialised once");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O!O!y*iO!nnO!", names, &PyList_Type, &lists[0],
                                     &PyList_Type, &lists[1], &PyList_Type, &lists[2], &weights,
                                     &n_classes, &PyTuple_Type, &sizes, &max_tokens, &tail_tokens,
                                     &PyTuple_Type, &cjk))
        return -1;
    int ok = -1;
    Py_ssize_t n_keys = 0, pool_len = 0, n_long = 0; /* n_long: keys in the general table */
    for (int k = 0; k < 3; k++) {
        n_keys += PyList_GET_SIZE(lists[k]);
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(lists[k]); i++) {
            PyObject *s = PyList_GET_ITEM(lists[k], i);
            if (!PyUnicode_Check(s)) {
                PyErr_SetString(PyExc_TypeError, "vocabulary keys must be str");
                goto done;
            }
            pool_len += PyUnicode_GET_LENGTH(s);
            n_long += k != KIND_CHAR || PyUnicode_GET_LENGTH(s) > 4;
        }
    }
    if (n_classes < 1 || weights.itemsize != 1 || weights.len % ((Py_ssize_t)sizeof(float) * n_classes)) {
        PyErr_SetString(PyExc_ValueError, "weights: float32 bytes, class-major");
        goto done;
    }
    Py_ssize_t size = weights.len / (Py_ssize_t)sizeof(float) / n_classes;
    if (size < n_keys || n_keys >= INT32_MAX || pool_len >= (Py_ssize_t)UINT32_MAX || PyTuple_GET_SIZE(sizes) > MAX_SIZES || PyTuple_GET_SIZE(cjk) > MAX_CJK ||
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
    while (scap < (size_t)PyList_GET_SIZE(lists[0]) * 2 + 16) scap <<= 1;
    self->smask = scap - 1;
    self->shorts = PyMem_Malloc(scap * sizeof(Short));
    self->pool = PyMem_Malloc((size_t)(pool_len + 1) * sizeof(Py_UCS4));
    self->key_start = PyMem_Malloc((size_t)(n_keys + 1) * sizeof(uint32_t));
    self->key_len = PyMem_Malloc((size_t)(n_keys + 1) * sizeof(uint32_t));
    self->weights = PyMem_Malloc((size_t)(size * n_classes + 1) * sizeof(float));
    self->stamp = PyMem_Calloc((size_t)size + 1, sizeof(uint32_t));
    self->sums = PyMem_Malloc((size_t)n_classes * sizeof(double));
    if (!self->slots || !self->shorts || !self->pool || !self->key_start || !self->key_len || !self->weights ||
        !self->stamp || !self->sums) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t i = 0; i < cap; i++) self->slots[i].index = -1;
    for (size_t i = 0; i < scap; i++) self->shorts[i].index = -1;
    const float *w = (const float *)weights.buf; /* native order: array("f").tobytes() */
    for (Py_ssize_t k = 0; k < n_classes; k++)
        for (Py_ssize_t i = 0; i < size; i++) self->weights[i * n_classes + k] = w[k * size + i];
    Py_ssize_t index = 0;
    for (int k = 0; k < 3; k++) {
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(lists[k]); i++, index++) {
            PyObject *s = PyList_GET_ITEM(lists[k], i);
            Py_ssize_t n = PyUnicode_GET_LENGTH(s);
            if (n && !PyUnicode_AsUCS4(s, self->pool + self->pool_len, n, 0)) goto done;
            self->key_start[index] = (uint32_t)self->pool_len, self->key_len[index] = (uint32_t)n;
            self->pool_len += n;
        }
        self->kind_end[k] = index;
    }
    for (Py_ssize_t i = 0; i < n_keys; i++) {
        if (i < self->kind_end[0] && self->key_len[i] <= 4) {
            uint64_t a;
            uint32_t b;
            pack(self->pool + self->key_start[i], self->key_len[i], &a, &b);
            short_insert(self->shorts, self->smask, a, b, i);
        } else {
            insert(self, kind_of(self, i), i);
        }
    }
    self->epoch = 1;
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

static PyObject *Kernel_grams(Kernel *self, PyObject *arg) {
    if (self->slots == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Kernel not initialised");
        return NULL;
    }
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "grams() takes a str");
        return NULL;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(arg);
    if (grow((void **)&self->text, &self->text_cap, n + 1, sizeof(Py_UCS4)) < 0 ||
        grow((void **)&self->tok, &self->tok_cap, 2 * n + 2, sizeof(Py_ssize_t)) < 0)
        return NULL;
    if (n && !PyUnicode_AsUCS4(arg, self->text, n, 0)) return NULL;
    const Py_UCS4 *t = self->text;
    if (++self->epoch == 0) { /* wrapped: forget every stamp */
        memset(self->stamp, 0, (size_t)(self->n_index + 1) * sizeof(uint32_t));
        self->epoch = 1;
    }
    for (int k = 0; k < self->n_classes; k++) self->sums[k] = 0.0;
    Py_ssize_t count = 0;
    /* character n-grams: packed and hashed first, then looked up with the slots a few
     * n-grams ahead already on their way from memory; then their weights, likewise */
    if (grow_grams(self, (n + 1) * self->n_sizes) < 0) return NULL;
    Py_ssize_t m = 0;
    for (int s = 0; s < self->n_sizes; s++) {
        Py_ssize_t size = self->sizes[s];
        for (Py_ssize_t i = 0; i + size <= n; i++) {
            if (size > 4) {
                add(self, lookup(self, KIND_CHAR, t + i, size), &count);
                continue;
            }
            pack(t + i, size, &self->pa[m], &self->pb[m]);
            self->ph[m] = short_hash(self->pa[m], self->pb[m]);
            m++;
        }
    }
    const Short *shorts = self->shorts;
    Py_ssize_t nhits = 0;
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
    /* tokens, as _TOKEN.findall */
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
    Py_ssize_t longest = 0;
    for (Py_ssize_t j = 0; j < ntok; j++) {
        add(self, lookup(self, KIND_WORD, t + tok[2 * j], tok[2 * j + 1]), &count);
        if (tok[2 * j + 1] > longest) longest = tok[2 * j + 1];
    }
    if (grow((void **)&self->key, &self->key_cap, 2 * longest + 1, sizeof(Py_UCS4)) < 0) return NULL;
    for (Py_ssize_t j = 0; j + 1 < ntok; j++) {
        Py_ssize_t a = tok[2 * j + 1], b = tok[2 * j + 3];
        memcpy(self->key, t + tok[2 * j], (size_t)a * sizeof(Py_UCS4));
        self->key[a] = ' ';
        memcpy(self->key + a + 1, t + tok[2 * j + 2], (size_t)b * sizeof(Py_UCS4));
        add(self, lookup(self, KIND_BIGRAM, self->key, a + 1 + b), &count);
    }
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

static PyMethodDef Kernel_methods[] = {
    {"grams", (PyCFunction)Kernel_grams, METH_O,
     "grams(region) -> (per-class weight sums, number of vocabulary n-grams present)"},
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
