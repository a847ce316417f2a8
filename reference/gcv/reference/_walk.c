/* The compiled twin of gcv.reference.closure's queries, named: Verify's walk with its
 * witness path (Lemma 2.1), Affected* and Affected* within S_t (Definition 2.3).
 *
 * It reads the map's numbering as the pure walk does (records 0 .. n-1, each one's links
 * an array('i'), S_t a bytearray, the names a list) and answers with the same records in
 * the same order: breadth-first, each record checked on its first visit.  The pure Python
 * walk is the definition; tests/test_walk_kernel.py runs both on generated maps.
 *
 * Marks are epoch-stamped: stamp[r] == epoch means "reached by this query", so a query
 * clears nothing and allocates nothing beyond its answer, and its time stays
 * O(1 + what it visits) as Proposition 2.5 requires.  The buffers (stamps, parents, the
 * queue) grow with the largest map queried, doubling, and are kept for the process.
 *
 * Safety: every link is bounds-checked before it is followed, the shapes are checked on
 * entry, and no Python code runs while the buffers hold a query's state (the walk makes
 * no Python object; building the answer runs with the collector paused), so a finalizer
 * cannot re-enter the kernel or change the map under it.
 *
 * The module says which build it is (BUILD: the name setup.py compiled it with, or None for
 * a build made outside setup.py) and whether GCV_PURE_WALK (set to anything but "" or "0")
 * asks for the pure walk (PURE_FORCED); gcv.reference.closure lets the kernel answer only
 * when neither forbids it and setup.py recorded that this very build passed the check of
 * gcv.reference.walk_check (equal to the pure walk on every small map and on long ones).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static PyTypeObject *array_type;   /* array.array: each record's links */
static PyObject *grounding_type;   /* gcv.reference.closure.Grounding, read on first use */
static PyObject *field_names[5];   /* Grounding's fields, in order */

static uint32_t *stamp;  /* stamp[r] == epoch: r reached by the current query */
static int32_t *parent;  /* Verify: the record r was first reached from */
static int32_t *queue;   /* the records reached, in order; Affected* holds beta too */
static Py_ssize_t capacity;
static uint32_t epoch;

/* Room for n records (and the queue's one extra slot), grown by doubling. */
static int
reserve(Py_ssize_t n)
{
    if (n < capacity) {
        return 0;
    }
    if (n >= INT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "the compiled walk numbers at most 2**31 - 2 records");
        return -1;
    }
    Py_ssize_t grown = capacity * 2 > n + 1 ? capacity * 2 : n + 1;
    if (grown < 64) {
        grown = 64;
    }
    if (grown > INT32_MAX) {
        grown = INT32_MAX;
    }
    uint32_t *s = realloc(stamp, (size_t)grown * sizeof *s);
    if (s == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    stamp = s;
    memset(stamp + capacity, 0, (size_t)(grown - capacity) * sizeof *s);
    int32_t *p = realloc(parent, (size_t)grown * sizeof *p);
    if (p == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    parent = p;
    int32_t *q = realloc(queue, (size_t)grown * sizeof *q);
    if (q == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    queue = q;
    capacity = grown;
    return 0;
}

/* A fresh epoch: every stamp is now stale.  On wrap-around the stamps are cleared once,
 * so the cost is O(capacity) per 2**32 - 1 queries. */
static void
next_epoch(void)
{
    if (++epoch == 0) {
        memset(stamp, 0, (size_t)capacity * sizeof *stamp);
        epoch = 1;
    }
}

/* Record r's links: the buffer of lists[r], which must be an array('i'). */
static int
open_links(PyObject *lists, Py_ssize_t r, Py_buffer *view)
{
    PyObject *links = PyList_GET_ITEM(lists, r);
    if (!Py_IS_TYPE(links, array_type)) {
        PyErr_Format(PyExc_TypeError, "record %zd's links are not an array('i')", r);
        return -1;
    }
    if (PyObject_GetBuffer(links, view, PyBUF_FORMAT | PyBUF_ND) < 0) {
        return -1;
    }
    if (view->itemsize != (Py_ssize_t)sizeof(int32_t) || view->format == NULL
        || strcmp(view->format, "i") != 0) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_TypeError, "record %zd's links are not an array('i')", r);
        return -1;
    }
    return 0;
}

static int
out_of_range(Py_ssize_t record, int32_t link, Py_ssize_t n)
{
    PyErr_Format(PyExc_ValueError, "record %zd links to %d, outside the %zd numbered records",
                 record, (int)link, n);
    return -1;
}

/* The shapes every query reads: ``lists`` a list of n arrays, ``name`` a list of n
 * names, ``good`` (when given) a bytearray of n flags, ``start`` a record number. */
static int
check_shapes(PyObject *lists, PyObject *good, PyObject *name, Py_ssize_t start, Py_ssize_t *n)
{
    if (!PyList_CheckExact(lists) || !PyList_CheckExact(name)) {
        PyErr_SetString(PyExc_TypeError, "the links and the names are lists");
        return -1;
    }
    *n = PyList_GET_SIZE(lists);
    if (PyList_GET_SIZE(name) != *n) {
        PyErr_SetString(PyExc_ValueError, "the names and the links number different records");
        return -1;
    }
    if (good != NULL) {
        if (!PyByteArray_CheckExact(good)) {
            PyErr_SetString(PyExc_TypeError, "S_t's flags are a bytearray");
            return -1;
        }
        if (PyByteArray_GET_SIZE(good) != *n) {
            PyErr_SetString(PyExc_ValueError, "S_t's flags and the links number different records");
            return -1;
        }
    }
    if (start < 0 || start >= *n) {
        PyErr_Format(PyExc_IndexError, "record %zd is not numbered (%zd records)", start, *n);
        return -1;
    }
    return reserve(*n);
}

/* The names of queue[from .. to), keeping those in S_t only when ``good`` is given.
 * Called with the collector paused: nothing it allocates can run Python code. */
static PyObject *
names_of(PyObject *name, const char *good, Py_ssize_t from, Py_ssize_t to)
{
    Py_ssize_t size = 0;
    for (Py_ssize_t i = from; i < to; i++) {
        size += good == NULL || good[queue[i]];
    }
    PyObject *out = PyTuple_New(size);
    if (out == NULL) {
        return NULL;
    }
    Py_ssize_t k = 0;
    for (Py_ssize_t i = from; i < to; i++) {
        if (good == NULL || good[queue[i]]) {
            PyObject *item = PyList_GET_ITEM(name, queue[i]);
            Py_INCREF(item);
            PyTuple_SET_ITEM(out, k++, item);
        }
    }
    return out;
}

/* Dep links from the start to ``end``, following the parents back (the start is its own
 * parent), as names. */
static PyObject *
path_to(PyObject *name, int32_t end)
{
    Py_ssize_t length = 1;
    for (int32_t r = end; parent[r] != r; r = parent[r]) {
        length++;
    }
    PyObject *out = PyTuple_New(length);
    if (out == NULL) {
        return NULL;
    }
    int32_t r = end;
    for (Py_ssize_t k = length - 1; k >= 0; k--) {
        PyObject *item = PyList_GET_ITEM(name, r);
        Py_INCREF(item);
        PyTuple_SET_ITEM(out, k, item);
        r = parent[r];
    }
    return out;
}

/* Grounding(candidate, grounded, closure, witness, path), made as the frozen dataclass's
 * own __init__ makes it (object.__new__, then object.__setattr__ per field), without its
 * five Python-level calls.  Steals the references it is given. */
static PyObject *
grounding(PyObject *fields[5])
{
    PyObject *out = NULL;
    for (int i = 0; i < 5; i++) {
        if (fields[i] == NULL) {
            goto done;
        }
    }
    PyTypeObject *type = (PyTypeObject *)grounding_type;
    PyObject *no_args = PyTuple_New(0);
    if (no_args == NULL) {
        goto done;
    }
    out = type->tp_new(type, no_args, NULL);
    Py_DECREF(no_args);
    if (out == NULL) {
        goto done;
    }
    for (int i = 0; i < 5; i++) {
        if (PyObject_GenericSetAttr(out, field_names[i], fields[i]) < 0) {
            Py_CLEAR(out);
            goto done;
        }
    }
done:
    for (int i = 0; i < 5; i++) {
        Py_XDECREF(fields[i]);
    }
    return out;
}

static int
parse(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t expected, const char *what,
      Py_ssize_t *number)
{
    if (nargs != expected) {
        PyErr_Format(PyExc_TypeError, "%s takes %zd arguments (%zd given)", what, expected, nargs);
        return -1;
    }
    *number = PyLong_AsSsize_t(args[expected - 1]);
    return *number == -1 && PyErr_Occurred() ? -1 : 0;
}

PyDoc_STRVAR(walk_doc,
"walk(supports, good, name, start) -> Grounding\n\n"
"Lemma 2.1: Verify's walk from record ``start``, as closure.dependency_walk, named.");

static PyObject *
walk(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t start, n, tail = 1, witness = -1;
    if (parse(args, nargs, 4, "walk", &start) < 0) {
        return NULL;
    }
    PyObject *supports = args[0], *good_flags = args[1], *name = args[2];
    if (grounding_type == NULL) {
        /* Read on the first walk, not at import: the kernel is imported by
         * gcv.reference.closure itself, before its module is complete. */
        PyObject *closure = PyImport_ImportModule("gcv.reference.closure");
        if (closure == NULL) {
            return NULL;
        }
        grounding_type = PyObject_GetAttrString(closure, "Grounding");
        Py_DECREF(closure);
        if (grounding_type == NULL) {
            return NULL;
        }
        if (!PyType_Check(grounding_type)) {
            Py_CLEAR(grounding_type);
            PyErr_SetString(PyExc_TypeError, "gcv.reference.closure.Grounding is not a class");
            return NULL;
        }
    }
    if (check_shapes(supports, good_flags, name, start, &n) < 0) {
        return NULL;
    }
    const char *good = PyByteArray_AS_STRING(good_flags);
    next_epoch();
    stamp[start] = epoch;
    parent[start] = (int32_t)start;
    queue[0] = (int32_t)start;
    if (!good[start]) {
        witness = start;
    }
    for (Py_ssize_t head = 0; witness < 0 && head < tail; head++) {
        int32_t record = queue[head];
        Py_buffer view;
        if (open_links(supports, record, &view) < 0) {
            return NULL;
        }
        const int32_t *links = view.buf;
        Py_ssize_t degree = view.len / (Py_ssize_t)sizeof(int32_t);
        for (Py_ssize_t k = 0; k < degree; k++) {
            int32_t support = links[k];
            if (support < 0 || support >= n) {
                PyBuffer_Release(&view);
                out_of_range(record, support, n);
                return NULL;
            }
            if (stamp[support] != epoch) {
                stamp[support] = epoch;
                parent[support] = record;
                if (!good[support]) {
                    witness = support;
                    break;
                }
                queue[tail++] = support;
            }
        }
        PyBuffer_Release(&view);
    }
    int collecting = PyGC_Disable();
    PyObject *fields[5];
    fields[0] = Py_NewRef(PyList_GET_ITEM(name, start));
    if (witness < 0) {
        fields[1] = Py_NewRef(Py_True);
        fields[2] = names_of(name, NULL, 0, tail);
        fields[3] = Py_NewRef(Py_None);
        fields[4] = PyTuple_New(0);
    }
    else {
        fields[1] = Py_NewRef(Py_False);
        fields[2] = PyTuple_New(0);
        fields[3] = Py_NewRef(PyList_GET_ITEM(name, witness));
        fields[4] = path_to(name, (int32_t)witness);
    }
    PyObject *out = grounding(fields);
    if (collecting) {
        PyGC_Enable();
    }
    return out;
}

/* Affected*(withdrawn) as record numbers in queue[1 .. tail): beta starts the queue
 * unmarked, so it is listed exactly when it lies on a cycle (Corollary 2.4). */
static Py_ssize_t
reverse_closure(PyObject *dependents, Py_ssize_t withdrawn, Py_ssize_t n)
{
    Py_ssize_t tail = 1;
    next_epoch();
    queue[0] = (int32_t)withdrawn;
    for (Py_ssize_t head = 0; head < tail; head++) {
        int32_t record = queue[head];
        Py_buffer view;
        if (open_links(dependents, record, &view) < 0) {
            return -1;
        }
        const int32_t *links = view.buf;
        Py_ssize_t degree = view.len / (Py_ssize_t)sizeof(int32_t);
        for (Py_ssize_t k = 0; k < degree; k++) {
            int32_t dependent = links[k];
            if (dependent < 0 || dependent >= n) {
                PyBuffer_Release(&view);
                return out_of_range(record, dependent, n);
            }
            if (stamp[dependent] != epoch) {
                stamp[dependent] = epoch;
                queue[tail++] = dependent;
            }
        }
        PyBuffer_Release(&view);
    }
    return tail;
}

static PyObject *
named_closure(PyObject *dependents, PyObject *good_flags, PyObject *name, Py_ssize_t withdrawn)
{
    Py_ssize_t n;
    if (check_shapes(dependents, good_flags, name, withdrawn, &n) < 0) {
        return NULL;
    }
    Py_ssize_t tail = reverse_closure(dependents, withdrawn, n);
    if (tail < 0) {
        return NULL;
    }
    const char *good = good_flags == NULL ? NULL : PyByteArray_AS_STRING(good_flags);
    int collecting = PyGC_Disable();
    PyObject *out = names_of(name, good, 1, tail);
    if (collecting) {
        PyGC_Enable();
    }
    return out;
}

PyDoc_STRVAR(affected_star_doc,
"affected_star(dependents, name, withdrawn) -> tuple\n\n"
"Definition 2.3: Affected*(withdrawn), as closure.reverse_closure, named.");

static PyObject *
affected_star(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t withdrawn;
    if (parse(args, nargs, 3, "affected_star", &withdrawn) < 0) {
        return NULL;
    }
    return named_closure(args[0], NULL, args[1], withdrawn);
}

PyDoc_STRVAR(affected_star_active_doc,
"affected_star_active(dependents, good, name, withdrawn) -> tuple\n\n"
"Affected*(withdrawn) within S_t, in the order of affected_star.");

static PyObject *
affected_star_active(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t withdrawn;
    if (parse(args, nargs, 4, "affected_star_active", &withdrawn) < 0) {
        return NULL;
    }
    return named_closure(args[0], args[1], args[2], withdrawn);
}

static PyMethodDef methods[] = {
    {"walk", (PyCFunction)(void (*)(void))walk, METH_FASTCALL, walk_doc},
    {"affected_star", (PyCFunction)(void (*)(void))affected_star, METH_FASTCALL,
     affected_star_doc},
    {"affected_star_active", (PyCFunction)(void (*)(void))affected_star_active, METH_FASTCALL,
     affected_star_active_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef walk_module = {
    PyModuleDef_HEAD_INIT,
    "_walk",
    "The compiled walks over the dependency map's numbering (see _walk.c).",
    -1,
    methods,
};

PyMODINIT_FUNC
PyInit__walk(void)
{
    static const char *fields[5] = {"candidate", "grounded", "closure", "witness", "path"};
    for (int i = 0; i < 5; i++) {
        if (field_names[i] == NULL && (field_names[i] = PyUnicode_InternFromString(fields[i])) == NULL) {
            return NULL;
        }
    }
    if (array_type == NULL) {
        PyObject *array = PyImport_ImportModule("array");
        if (array == NULL) {
            return NULL;
        }
        array_type = (PyTypeObject *)PyObject_GetAttrString(array, "array");
        Py_DECREF(array);
        if (array_type == NULL) {
            return NULL;
        }
    }
    PyObject *module = PyModule_Create(&walk_module);
    if (module == NULL) {
        return NULL;
    }
#ifdef GCV_WALK_BUILD
    PyObject *build = PyUnicode_FromString(GCV_WALK_BUILD);
#else
    PyObject *build = Py_NewRef(Py_None);
#endif
    const char *pure = getenv("GCV_PURE_WALK");
    int forced = pure != NULL && pure[0] != '\0' && strcmp(pure, "0") != 0;
    int failed = build == NULL || PyModule_AddObjectRef(module, "BUILD", build) < 0
                 || PyModule_AddObjectRef(module, "PURE_FORCED", forced ? Py_True : Py_False) < 0;
    Py_XDECREF(build);
    if (failed) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
