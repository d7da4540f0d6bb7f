"""Snippets of PyTorch code that autogradkit must run with the same printed result.

Each is run with ``torch`` bound to PyTorch and to autogradkit (see harness.py). They follow
the articles' examples (docs/TOPICS.md, A-F) and the PyTorch behaviours the kit promises
(docs/fidelity.md lists the few places where its text differs on purpose).
"""

SNIPPETS = {
    # ----- creation and printing ---------------------------------------------------------
    "repr_scalar_float": "print(torch.tensor(2.))",
    "repr_scalar_int": "print(torch.tensor(2))",
    "repr_vector": "print(torch.tensor([1., 2., 3., 4.]))",
    "repr_quarter": "print(torch.tensor([0.25, 0.5]))",
    "repr_tiny": "print(torch.tensor(1e-8))",
    "repr_sci_ratio": "print(torch.tensor([1e-5, 1.]))",
    "repr_sci_big": "print(torch.tensor([1., 1e9]))",
    "repr_big_int_like": "print(torch.tensor([123456789.]))",
    "repr_matrix": "print(torch.tensor([[1., 2.], [3., 4.]]))",
    "repr_3d": "print(torch.ones(2, 3, 2))",
    "repr_float64": "print(torch.tensor(2., dtype=torch.float64))",
    "repr_int32": "print(torch.tensor([1, 2], dtype=torch.int32))",
    "repr_bool": "print(torch.tensor([True, False]))",
    "repr_empty": "print(torch.zeros(0)); print(torch.zeros(2, 0)); print(torch.zeros(0, dtype=torch.int64))",
    "repr_nan_inf": "print(torch.tensor([float('nan'), float('inf'), 1.]))",
    "repr_nan_frac": "print(torch.tensor([float('nan'), 1.5]))",
    "repr_negative": "print(torch.tensor([-1.5, 2.]))",
    "repr_linspace_wrap": "print(torch.linspace(-5, 5, 30))",
    "repr_summarized": "print(torch.arange(2000.))",
    "repr_summarized_2d": "print(torch.arange(3000.).reshape(30, 100))",
    "repr_wide_rows": "print(torch.ones(3, 40) * 1.5)",
    "repr_requires_grad": "print(torch.tensor(2., requires_grad=True))",
    "repr_grad_fn": "a = torch.tensor(2., requires_grad=True); print(a * 3)",
    "repr_mm": "x = torch.tensor([[1., 2.]], requires_grad=True); print(x @ torch.tensor([[3., 4.], [5., 4.]]))",
    "repr_suffix_wrap": "print((torch.ones(1, 90) * 1.23).requires_grad_())",
    "repr_point16": "w = torch.tensor(0.); w = w - 0.01 * torch.tensor(-16.); print(w)",
    "repr_zero_and_tiny": "print(torch.tensor([1e-10, 0.]))",
    "repr_int_mixed": "print(torch.tensor([1, -20, 300]))",
    "repr_1e10": "print(torch.tensor([1e10]))",
    "repr_float64_vector": "print(torch.tensor([0.1, 0.2], dtype=torch.float64))",
    "repr_int_float_product": "print(torch.tensor(3) * torch.tensor(2.))",
    "repr_arange_int": "print(torch.arange(5)); print(torch.arange(0, 1, 0.25))",
    "repr_eye": "print(torch.eye(3))",
    "repr_full": "print(torch.full((2, 2), 7)); print(torch.full((2,), 0.5))",
    "repr_zeros_like": "x = torch.tensor([1, 2]); print(torch.zeros_like(x), torch.ones_like(x, dtype=torch.float32))",
    "shape_and_size": "x = torch.ones(2, 3); print(x.shape, x.size(), x.size(1), x.size(-1), x.dim(), x.numel())",
    "dtype_names": "print(torch.float32, torch.float64, torch.int64, torch.bool, torch.tensor(1).dtype)",
    "item_tolist": "x = torch.tensor([[1., 2.]]); print(x.tolist(), x[0, 1].item(), torch.tensor(3).item())",
    "format_scalar": "loss = torch.tensor(16.); print(f'{loss:.3f} {loss.item():.1f}')",
    "device": "x = torch.ones(2); print(x.device, x.to('cpu') is x, x.cpu() is x)",
    # ----- dtype promotion -------------------------------------------------------------------
    "promote_int_float_scalar": "print((torch.tensor([1, 2]) + 2.5).dtype)",
    "promote_int_int_scalar": "print((torch.tensor([1, 2]) * 2).dtype)",
    "promote_float32_float64": "print((torch.ones(2) + torch.ones(2, dtype=torch.float64)).dtype)",
    "promote_zero_dim_same_category": "print((torch.ones(2) + torch.tensor(1., dtype=torch.float64)).dtype)",
    "promote_zero_dim_higher_category": "print((torch.tensor([1, 2]) + torch.tensor(1.5, dtype=torch.float64)).dtype)",
    "promote_bool_int": "print((torch.tensor([True]) + 1).dtype)",
    "promote_int32_python_int": "print((torch.tensor([1], dtype=torch.int32) + 5).dtype)",
    "true_division_of_ints": "print(torch.tensor([1, 2]) / 2)",
    "float_of_float32_is_same": "x = torch.ones(2, requires_grad=True); print(x.float() is x, x.double().grad_fn, x.double().is_leaf)",
    "double_grad_none_warning": "x = torch.ones(2, requires_grad=True); y = x.double(); y.sum().backward(); print(y.grad, x.grad)",
    # ----- requires_grad, leaves, grad_fn names -----------------------------------------------
    "node_classes_print_as_pytorch": "a = torch.ones(2, requires_grad=True); c = (a * 2).sum(); print(type(c.grad_fn), type(c.grad_fn.next_functions[0][0]), type(c.grad_fn.next_functions[0][0].next_functions[0][0]), c.grad_fn)",
    "grad_under_create_graph_is_a_copy": "import warnings; warnings.simplefilter('ignore'); x = torch.ones(2, requires_grad=True); (x * x).sum().backward(create_graph=True); print(x.grad, x.grad._version, [f is None for f, _ in x.grad.grad_fn.next_functions])",
    "requires_grad_default": "x = torch.tensor(1.); print(x.requires_grad, x.is_leaf, x.grad, x.grad_fn)",
    "requires_grad_propagates": """
        x = torch.tensor(1.); y = torch.tensor(2.); z = torch.tensor(3., requires_grad=True)
        a = x + y; b = a + z
        print(a.requires_grad, b.requires_grad, a.is_leaf, b.is_leaf)""",
    "names_arith": """
        x = torch.tensor([1., 2., 3.], requires_grad=True)
        for y in [x + 1, x - 1, 1 - x, x * 2, x / 2, 2 / x, -x, x ** 2, x ** x, 2 ** x, x.square()]:
            print(y.grad_fn.name())""",
    "names_unary": """
        x = torch.tensor([1., 2., 3.], requires_grad=True)
        for y in [x.exp(), x.log(), x.sin(), x.cos(), x.tanh(), x.sigmoid(), x.relu(), x.sqrt(), x.abs(), x.clamp(0, 1), x.clamp(min=0)]:
            print(y.grad_fn.name())""",
    "names_reduce": """
        m = torch.tensor([[1., 5., 3.], [4., 2., 6.]], requires_grad=True)
        for y in [m.sum(), m.sum(0), m.mean(), m.mean(1), m.max(), m.max(1)[0], m.min(), m.std(), m.var(), m.std(1)]:
            print(y.grad_fn.name())""",
    "names_movement": """
        m = torch.tensor([[1., 5., 3.], [4., 2., 6.]], requires_grad=True)
        for y in [m.T, m.t(), m.transpose(0, 1), m.permute(1, 0), m.view(6), m.reshape(6), m.T.reshape(6),
                  m.flatten(), m.unsqueeze(0), m.unsqueeze(0).squeeze(), m.unsqueeze(0).squeeze(0), m[0], m[:, 1:],
                  m[0, 1], m[[0, 1]], m[m > 2], m[:, None], m[..., 0], torch.cat([m, m]), torch.stack([m, m]),
                  torch.where(m > 2, m, 0.), m.clone(), m.double()]:
            print(y.grad_fn.name(), tuple(y.shape))""",
    "names_matmul": """
        m = torch.tensor([[1., 5., 3.], [4., 2., 6.]], requires_grad=True)
        v = torch.tensor([1., 2., 3.], requires_grad=True)
        for y in [m @ m.T, m @ v, v @ v, m.mm(m.t()), m.mv(v), v.dot(v)]:
            print(y.grad_fn.name(), y)""",
    "names_softmax": """
        m = torch.tensor([[1., 5., 3.], [4., 2., 6.]], requires_grad=True)
        print(m.softmax(1).grad_fn.name(), m.log_softmax(1).grad_fn.name())
        print(m.softmax(1)); print(m.log_softmax(dim=-1))""",
    "names_maximum": "x = torch.tensor([1., 2.], requires_grad=True); print(torch.maximum(x, x).grad_fn.name(), torch.minimum(x, 1 - x).grad_fn.name())",
    "node_classes_are_unrelated": """
        x = torch.ones(2, requires_grad=True)
        nodes = [x + 1, x - 1, 1 - x, x.mean(), x.mean(0), x.sum(), x.max(), x.min(), torch.maximum(x, x),
                 torch.minimum(x, x), x[0], x[:1], x.view(2), x.reshape(1, 2).squeeze(), x.squeeze(0), x.clamp(0),
                 x.clamp_min(0), x.split(1)[0], x.split([1, 1])[0], x.prod(), x.prod(0), x.sign()]
        nodes = [n.grad_fn for n in nodes]
        print([[isinstance(a, type(b)) for b in nodes].count(True) for a in nodes])
        print(all(isinstance(n, torch.autograd.graph.Node) for n in nodes), type(nodes[1]).__mro__[-1])""",
    "cross_entropy_records_scalar_mul_and_div": """
        F = torch.nn.functional
        x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.2, -0.3]], requires_grad=True)
        p = torch.tensor([[0.1, 0.6, 0.3], [0.7, 0.2, 0.1]])
        for loss in (F.cross_entropy(x, p), F.cross_entropy(x, p, label_smoothing=0.2),
                     F.cross_entropy(x, torch.tensor([0, 2]), label_smoothing=0.2)):
            node = loss.grad_fn
            print(loss, node.next_functions, [n for n in dir(node) if n.startswith('_saved')])
            for f, _ in node.next_functions:
                print(f, f.next_functions, [n for n in dir(f) if n.startswith('_saved')])
                print(getattr(f, '_saved_other', None))
            loss.backward()
        print(node._saved_alpha, x.grad)""",
    "grad_version_after_accumulation": """
        # PyTorch keeps a fresh gradient as .grad (version 0) and copies an expanded or strided one
        # (copy_: version 1); later accumulations add in place, one version each
        for make in (lambda a: a.sum(), lambda a: a.sum(1).sum(), lambda a: (a + 1).sum(), lambda a: a.t().sum(),
                     lambda a: a.clone().sum(), lambda a: a.mean(), lambda a: a.mean(1).sum(), lambda a: (a * 2).sum(),
                     lambda a: a[0].sum(), lambda a: (a.view(6) * 2).sum(), lambda a: a.exp().sum()):
            for shape in ((), (2, 3)):
                a = torch.ones(shape, requires_grad=True)
                try:
                    make(a).backward()
                except (IndexError, RuntimeError):
                    continue
                versions = [a.grad._version]
                make(a).backward(); versions.append(a.grad._version)
                make(a).backward(); versions.append(a.grad._version)
                a.grad = torch.zeros(shape); versions.append(a.grad._version)
                make(a).backward(); versions.append(a.grad._version)
                print(shape, versions, end='; ')
            print()""",
    "double_backward_graphs_of_the_formulas": """
        def walk(fn, seen):
            if fn is None or fn in seen:
                return ""
            seen.add(fn)
            return fn.name() + "(" + ",".join(walk(f, seen) for f, _ in fn.next_functions) + ")"
        t = torch.tensor([[0.1, 0.9, 0.4], [0.7, 0.2, 0.5]])
        for f in (lambda x: x ** 2, lambda x: x ** 3, lambda x: x.square(), lambda x: x.abs() ** 0.5,
                  lambda x: x.abs().sqrt(), lambda x: x.cos(), lambda x: 2 / x, lambda x: t / x, lambda x: x.reciprocal(),
                  lambda x: (x - t).pow(2).sum().sqrt()):
            x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.2, -0.3]], requires_grad=True)
            y = f(x)
            g, = torch.autograd.grad(y, x, torch.ones_like(y), create_graph=True)
            inner = [f for f, _ in g.grad_fn.next_functions if f is not None][-1]
            print(walk(g.grad_fn, set()), getattr(inner, '_saved_other', ''), getattr(inner.next_functions[0][0], '_saved_exponent', ''))
            g.sum().backward(); print(x.grad)
        for y in (x.mean(), x.mean(1)):  # mean: the gradient expanded, then divided by a Scalar
            g, = torch.autograd.grad(y, x, torch.ones_like(y).requires_grad_(), create_graph=True)
            print(walk(g.grad_fn, set()), g.grad_fn._saved_other)""",
    "no_grad_view_after_its_base_changed": """
        def show(f):
            try:
                print(f())
            except RuntimeError as e:
                print("raised", e)
        x = torch.ones(3, requires_grad=True)  # a leaf base, changed in no_grad mode too
        with torch.no_grad():
            v = x[:2]
            x.mul_(2)
        show(lambda: v.grad_fn); show(lambda: v.requires_grad)
        a = torch.ones(3, requires_grad=True).clone()
        with torch.no_grad():
            v = a[:2]
            w = a * 2
        print(v.grad_fn, v.is_leaf, v, vars(v), vars(w))  # nothing in vars(): PyTorch's
        a[1:].mul_(2)  # another view of the base, with grad mode on
        for f in (lambda: v.grad_fn, lambda: v.is_leaf, lambda: v.sum(), lambda: v + 1, lambda: v.detach(),
                  lambda: v._version, lambda: v, lambda: a.grad_fn):
            show(f)
        b = torch.ones(3)  # a base that needs no grad: nothing to refuse
        with torch.no_grad():
            w = b[:2]
        b.mul_(2); print(w.grad_fn, w)
        with torch.no_grad():  # made after the change: fine
            u = a[:2]
        print(u.grad_fn, u.requires_grad)""",
    "reduction_dims_of_a_0_dim_tensor_and_repeated_dims": """
        x = torch.tensor(2., requires_grad=True)
        for f in ("x.sum(0)", "x.sum(-1)", "x.mean(0)", "x.sum(0, keepdim=True)", "x.sum((0, -1))", "x.prod(0)",
                  "x.logsumexp(0)", "x.std(0)", "x.var(-1)", "x.sum(1)", "x.mean(-2)",
                  "torch.ones(2, 3).sum((1, 0, -1, 0))", "torch.ones(2, 3).mean([0, -2])"):
            try:
                y = eval(f)
                y.backward()
                print(f, y, x.grad, y.grad_fn._saved_dim)
            except Exception as e:
                print(f, type(e).__name__, e)""",
    "ragged_lists_and_two_inferred_dims": """
        for data in ([[1, 2], [3]], [[[1], [2]], [[3]]], [[1, 2], [3, 4, 5]], [[1., 2.], [3]], [[[1, 2], [3]], [4]]):
            for kw in ({}, {"dtype": torch.float32}):
                try:
                    print(torch.tensor(data, **kw))
                except Exception as e:
                    print(type(e).__name__, e)
        for shape in ((-1, -1), (-1, 2, -1), (-1, 3), (4, -1)):
            for f in (torch.ones(2, 3).view, torch.ones(2, 3).reshape):
                try:
                    print(f(*shape).shape)
                except RuntimeError as e:
                    print(e)""",
    "pieces_of_split_and_unbind_refuse_in_place_changes": """
        def show(f):
            try:
                print(f())
            except RuntimeError as e:
                print("raised", e)
        b = torch.ones(2, 3, requires_grad=True).clone()
        show(lambda: b.split(1)[0].mul_(2)); show(lambda: b.unbind(0)[1].add_(1))
        show(lambda: b.chunk(3, 1)[2].zero_()); show(lambda: b.split([1, 1])[1].copy_(torch.zeros(1, 3)))
        show(lambda: torch.ones(2, 3, requires_grad=True).split(1)[1].exp_())
        show(lambda: torch.ones(2, 3).split(1)[0].mul_(2))  # nothing requires grad: allowed
        print(b)""",
    "strides_of_views": """
        x = torch.arange(24.).reshape(2, 3, 4)
        for t in (x, x.permute(2, 1, 0), x.transpose(0, 1), x[:, 1], x[..., ::2], x[0, :, 1:3], x.unsqueeze(1),
                  x[:, :1].expand(2, 5, 4), torch.ones(3).unsqueeze(1), torch.tensor(2.), x.view(6, 4), x[1].t()):
            print(t.stride(), t.is_contiguous(), t.stride(-1) if t.dim() else None)
        try:
            x.stride(3)
        except IndexError as e:
            print(e)""",
    "relu_double_backward": """
        x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.0, -0.3]], requires_grad=True)
        y = x.relu()
        g, = torch.autograd.grad(y, x, torch.ones_like(y).requires_grad_(), create_graph=True)
        node = g.grad_fn
        print(g, node, node.next_functions, node._saved_self, node._saved_threshold)
        g.sum().backward(); print(x.grad)
        g, = torch.autograd.grad(torch.nn.functional.relu(x).sum(), x, create_graph=True)
        print(g.grad_fn.next_functions, g.requires_grad)
        g.sum().backward(); print(x.grad)""",
    "node_type_and_repr": """
        a = torch.tensor(2., requires_grad=True); c = a * 3
        print(type(c.grad_fn).__name__, c.grad_fn, type(c.grad_fn.next_functions[0][0]).__name__)""",
    "next_functions_leaf_and_constant": """
        a = torch.tensor(2., requires_grad=True); b = torch.tensor(3.)
        c = a * b
        print(c.grad_fn.next_functions)
        print(c.grad_fn.next_functions[0][0].variable is a)""",
    "next_functions_scalar_operands": """
        x = torch.tensor([1., 2.], requires_grad=True); y = torch.tensor([3., 4.])
        for out in (1 - x, x - 1, 2 * x, x / 2, 1 + x, x ** 2, x ** 0, 2 ** x, x.pow(2.5), y ** x, x ** y):
            print(out.grad_fn.name(), [(f.name() if f else f, i) for f, i in out.grad_fn.next_functions])
        print(x.masked_fill(x > 1, 0.).grad_fn.next_functions)""",
    "scalar_operands_backward_and_hooks": """
        x = torch.tensor([1., 2.], requires_grad=True)
        y = (1 - x) * (x ** 2) + 2 ** x
        y.grad_fn.next_functions[0][0].register_hook(lambda gi, go: print(len(gi), len(go)))
        y.sum().backward(); print(x.grad)
        z = torch.tensor([1., 2.], requires_grad=True).clone(); z[0:1].pow_(2); print(z.grad_fn.next_functions)""",
    "grad_mode_decorators_and_generators": """
        x = torch.tensor(1., requires_grad=True)
        @torch.no_grad
        def f(): return (x * 2).requires_grad, torch.is_grad_enabled()
        @torch.enable_grad
        def g(): return (x * 2).requires_grad
        @torch.set_grad_enabled(False)
        def h(): return (x * 2).requires_grad
        @torch.inference_mode
        def i(): return (x * 2).requires_grad, torch.is_grad_enabled()
        @torch.inference_mode()
        def j(): return (x * 2).requires_grad
        @torch.inference_mode(False)
        def k(): return (x * 2).requires_grad
        print(f(), f.__name__, g(), h(), i(), j(), k(), torch.is_grad_enabled())
        with torch.no_grad():
            print(g(), k(), torch.is_grad_enabled())
        @torch.no_grad()
        def gen(n):
            for _ in range(n):
                got = yield (x * 2).requires_grad, torch.is_grad_enabled()
                print("got", got, torch.is_grad_enabled())
            return "end"
        it = gen(2)
        print(torch.is_grad_enabled(), next(it), torch.is_grad_enabled(), it.send(5))
        try: it.send(6)
        except StopIteration as e: print("stop", e.value)
        @torch.enable_grad()
        def gen2():
            yield torch.is_grad_enabled()
        with torch.no_grad():
            print(list(gen2()), torch.is_grad_enabled())
        with torch.no_grad() as c: print(c)
        with torch.enable_grad() as c: print(c)
        with torch.set_grad_enabled(False) as c: print(c, torch.is_grad_enabled())
        with torch.inference_mode() as c: print(c, torch.is_grad_enabled(), (x * 2).requires_grad)
        print(torch.is_grad_enabled())
        torch.set_grad_enabled(False); print(torch.is_grad_enabled()); torch.set_grad_enabled(True)
        with torch.no_grad():
            with torch.inference_mode(False): print("inf False in no_grad", torch.is_grad_enabled())
            with torch.enable_grad(): print((x * 2).requires_grad)
        class M:
            @torch.no_grad()
            def m(self): return (x * 3).requires_grad
        print(M().m())""",
    "errors_not_numpy_s": """
        def show(f):
            try:
                print(f())
            except Exception as e:
                print(type(e).__name__ + ":", e)
        a = torch.ones(2, 3); v = torch.ones(3)
        show(lambda: torch.mm(a, v)); show(lambda: torch.mm(v, a)); show(lambda: a.mm(v)); show(lambda: torch.mm(v, v))
        show(lambda: torch.stack([torch.ones(2), torch.ones(3)]))
        show(lambda: torch.stack([torch.ones(2, 3), torch.ones(2, 3), torch.ones(3, 2)]))
        show(lambda: float(torch.ones(2))); show(lambda: int(torch.ones(2))); show(lambda: torch.ones(2).item())
        show(lambda: torch.tensor([1, 2]) ** -1); show(lambda: torch.tensor([1, 2]).pow(-2)); show(lambda: torch.tensor([2, 4]) ** -1.0)
        show(lambda: -torch.tensor([True, False])); show(lambda: torch.tensor(True).neg())
        show(lambda: torch.tensor(3.)[0]); show(lambda: torch.tensor(3.)[-2]); show(lambda: torch.tensor(3.)[0, 1]); show(lambda: torch.tensor(3.)[None, 0])
        show(lambda: torch.ones(2)[5]); show(lambda: torch.ones(2, 3)[0, 7]); show(lambda: torch.ones(2, 3)[None, 0, 9])
        show(lambda: torch.ones(2, 3)[..., 4]); show(lambda: torch.ones(2, 3)[:, -4])""",
    "views_made_under_no_grad": """
        x = torch.ones(2, 3, requires_grad=True)
        with torch.no_grad():
            v = x[0]; t = x.t(); r = x.view(6)
            print(x.numpy(), (x * 2).numpy())
        print(v.requires_grad, v.grad_fn, v.is_leaf, t.requires_grad, r.requires_grad, r._base is x)
        try:
            v.mul_(2)
        except RuntimeError as e:
            print(e)
        with torch.no_grad():
            v.mul_(2)
        print(x)""",
    "custom_function_arguments_and_styles": """
        Function = torch.autograd.Function
        def show(f):
            try:
                print(f())
            except Exception as e:
                print(type(e).__name__ + ":", e)
        class Scale(Function):
            @staticmethod
            def forward(ctx, x, k, flag):
                print("needs", ctx.needs_input_grad)
                ctx.k = k
                return x * k
            @staticmethod
            def backward(ctx, g):
                return g * ctx.k, None, None
        x = torch.tensor([1., 2.], requires_grad=True)
        y = Scale.apply(x, 3., "s")
        print(y.grad_fn.next_functions)
        y.sum().backward(); print(x.grad)
        class Trailing(Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2
            @staticmethod
            def backward(ctx, g):
                return g * 2, None, None
        show(lambda: Trailing.apply(x).sum().backward())
        print(x.grad)
        class Too(Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2
            @staticmethod
            def backward(ctx, g):
                return g * 2, g
        show(lambda: Too.apply(x).sum().backward())
        class Sq(Function):
            @staticmethod
            def forward(x):
                return x * x
            @staticmethod
            def setup_context(ctx, inputs, output):
                (x,) = inputs
                ctx.save_for_backward(x)
            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 2 * x * g
        x.grad = None
        Sq.apply(x).sum().backward(); print(x.grad)
        class Sort(Function):
            @staticmethod
            def forward(ctx, x):
                idx = torch.tensor([1, 0])
                ctx.mark_non_differentiable(idx)
                return x * 1, idx
            @staticmethod
            def backward(ctx, g, gi):
                print("gi", gi)
                return g
        a, b = Sort.apply(x); print(a.requires_grad, b.requires_grad)
        x.grad = None; a.sum().backward(); print(x.grad)
        class Mat(Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 1, x * 2
            @staticmethod
            def backward(ctx, g1, g2):
                print("g2", g2)
                return g1
        p, q = Mat.apply(x); x.grad = None; p.sum().backward(); print(x.grad)
        class Exp(Function):
            @staticmethod
            def forward(ctx, x):
                out = x.exp(); ctx.save_for_backward(out); return out
            @staticmethod
            def backward(ctx, g):
                (out,) = ctx.saved_tensors; return g * out
        e = Exp.apply(x); e.mul_(2) if False else None
        with torch.no_grad(): e.add_(1)
        show(lambda: e.sum().backward())
        once_differentiable = torch.autograd.function.once_differentiable
        class Od(Function):
            @staticmethod
            def forward(ctx, x):
                return x * 3
            @staticmethod
            @once_differentiable
            def backward(ctx, g):
                print(type(g).__name__, g.requires_grad, torch.is_grad_enabled())
                return g * 3
        x.grad = None; Od.apply(x).sum().backward(); print(x.grad)
        z = Od.apply(x).sum(); (gx,) = torch.autograd.grad(z, x, create_graph=True); print(gx.requires_grad, gx.grad_fn)""",
    "accumulate_grad_api": """
        a = torch.tensor(2., requires_grad=True); b = torch.tensor(3., requires_grad=True)
        ag = (a + b).grad_fn.next_functions[0][0]
        print(ag.name(), ag.next_functions, ag.metadata, ag.variable)""",
    "accumulate_grad_is_shared": """
        a = torch.tensor(2., requires_grad=True)
        c = a * 2; d = a * 3
        print(c.grad_fn.next_functions[0][0] is d.grad_fn.next_functions[0][0])""",
    "next_functions_chain": """
        a = torch.tensor(2., requires_grad=True); b = torch.tensor(3., requires_grad=True); d = torch.tensor(4., requires_grad=True)
        c = a + b; e = c * d
        print(e.grad_fn.name(), [f.name() if f else f for f, _ in e.grad_fn.next_functions])
        print([f.name() for f, _ in e.grad_fn.next_functions[0][0].next_functions])
        print(e.grad_fn.next_functions[0][0].next_functions[1][0].variable is b)""",
    "next_functions_output_index": """
        m = torch.tensor([[1., 5.], [4., 2.]], requires_grad=True)
        v, i = m.max(1)
        y = v * 2
        print(y.grad_fn.next_functions, i)""",
    "max_dim_repr": """
        m = torch.tensor([[1., 5.], [4., 2.]], requires_grad=True)
        print(m.max(1)); print(m.min(dim=0, keepdim=True).values)""",
    # ----- backward: the articles' examples -------------------------------------------------
    "t15_mul_backward": """
        a = torch.tensor(2., requires_grad=True); b = torch.tensor(3.)
        c = a * b; c.backward()
        print(a.grad, b.grad, c.grad_fn)""",
    "t16_chain": """
        a = torch.tensor(2., requires_grad=True); b = torch.tensor(3., requires_grad=True); d = torch.tensor(4., requires_grad=True)
        e = (a * b) * d; e.backward()
        print(a.grad, b.grad, d.grad)""",
    "t42_add_then_mul": """
        a = torch.tensor(2., requires_grad=True); b = torch.tensor(3., requires_grad=True); d = torch.tensor(4., requires_grad=True)
        c = a + b; e = c * d; e.backward()
        print(a.grad, b.grad, d.grad)""",
    "t17_nonleaf_grad_warning": """
        a = torch.tensor(2., requires_grad=True); c = a * 3; c.backward()
        print(c.grad)""",
    "t18_retain_grad": """
        a = torch.tensor(2., requires_grad=True); c = a * 3; c.retain_grad(); d = c * c; d.backward()
        print(c.grad, c.retains_grad, a.grad)""",
    "t19_accumulation": """
        w = torch.tensor(1., requires_grad=True)
        for _ in range(3):
            (w * 2).backward()
            print(w.grad)
        w.grad.zero_(); print(w.grad)""",
    "t22_nonscalar_error": "x = torch.ones(2, requires_grad=True); (x * 2).backward()",
    "t23_gradient_arg": """
        x = torch.tensor([[1., 2.]], requires_grad=True)
        y = torch.tensor([[1., 2.], [2., 3.]], requires_grad=True)
        z = x @ y
        print(z)
        z.backward(torch.ones_like(z))
        print(x.grad, y.grad)""",
    "t23_weighted_gradient": """
        x = torch.tensor([1., 2., 3.], requires_grad=True)
        y = x * x
        y.backward(torch.tensor([0.1, 1., 10.]))
        print(x.grad)""",
    "t24_autograd_backward": """
        x = torch.tensor([1., 2.], requires_grad=True)
        y = x * 3; z = x * x
        torch.autograd.backward([y, z], [torch.ones(2), torch.ones(2)])
        print(x.grad)""",
    "t25_int_requires_grad": "torch.tensor([1, 2], requires_grad=True)",
    "t25_int_requires_grad_": "torch.tensor([1, 2]).requires_grad_()",
    "t25_int_setter": "t = torch.tensor([1, 2]); t.requires_grad = True",
    "t25_convert_first": "t = torch.tensor([1, 2]).float().requires_grad_(); print(t)",
    "t28_leaf_rules": """
        a = torch.tensor(1., requires_grad=True)
        b = torch.tensor(2.) * 3
        c = (a * 2).detach()
        d = a * 2
        print(a.is_leaf, b.is_leaf, c.is_leaf, d.is_leaf, c.requires_grad)""",
    "t21_no_grad": """
        x = torch.tensor(1., requires_grad=True)
        with torch.no_grad():
            y = x * 2
        print(y.requires_grad, y.grad_fn, torch.is_grad_enabled())""",
    "t21_enable_grad_inside": """
        x = torch.tensor(1., requires_grad=True)
        with torch.no_grad():
            with torch.enable_grad():
                y = x * 2
            z = x * 2
        print(y.requires_grad, z.requires_grad)""",
    "t21_set_grad_enabled": """
        x = torch.tensor(1., requires_grad=True)
        with torch.set_grad_enabled(False):
            y = x * 2
        torch.set_grad_enabled(False); z = x * 2; torch.set_grad_enabled(True)
        print(y.requires_grad, z.requires_grad, torch.is_grad_enabled())""",
    "t21_no_grad_decorator": """
        @torch.no_grad()
        def double(t):
            return t * 2
        x = torch.tensor(1., requires_grad=True)
        print(double(x).requires_grad, torch.is_grad_enabled())""",
    "t21_bare_decorators": """
        @torch.no_grad
        def off(t):
            return t * 2, torch.is_grad_enabled()
        @torch.enable_grad
        def on(t):
            return t * 2, torch.is_grad_enabled()
        @torch.inference_mode
        def inference(t):
            return torch.is_grad_enabled()
        @torch.inference_mode(mode=False)
        def not_inference(t):
            return torch.is_grad_enabled()
        @torch.set_grad_enabled(mode=False)
        def switched_off(t):
            return torch.is_grad_enabled()
        x = torch.tensor(1., requires_grad=True)
        y, mode = off(x)
        print(y.requires_grad, mode, off.__name__, torch.is_grad_enabled())
        with torch.no_grad():
            y, mode = on(x)
        print(y.requires_grad, mode, inference(x), not_inference(x), switched_off(x))
        print(torch.is_grad_enabled())""",
    "t21_decorated_generators": """
        @torch.no_grad()
        def doubles(t, n):
            for _ in range(n):
                received = yield (t * 2).requires_grad, torch.is_grad_enabled()
                print("received", received, "grad enabled inside:", torch.is_grad_enabled())
            return "done"
        x = torch.tensor(1., requires_grad=True)
        gen = doubles(x, 2)
        print(next(gen), torch.is_grad_enabled())
        print(gen.send("hello"), torch.is_grad_enabled())
        try:
            gen.send("bye")
        except StopIteration as stop:
            print("stopped with", stop.value, torch.is_grad_enabled())
        @torch.enable_grad()
        def counting():
            yield torch.is_grad_enabled()
            yield torch.is_grad_enabled()
        with torch.no_grad():
            print(list(counting()), torch.is_grad_enabled())""",
    "err_mm_vector": "torch.mm(torch.ones(3), torch.ones(3, 2))",
    "err_mm_vector_second": "torch.ones(2, 3).mm(torch.ones(3))",
    "err_stack_sizes": "torch.stack([torch.ones(2, 3), torch.ones(2, 2)], dim=1)",
    "err_float_of_many": "float(torch.ones(3))",
    "err_int_of_many": "int(torch.ones(2))",
    "err_int_negative_power": "torch.tensor([1, 2]) ** -1",
    "err_int_negative_pow": "torch.tensor([1, 2]).pow(-2)",
    "err_negate_bool": "-torch.tensor([True, False])",
    "err_index_0d": "torch.tensor(1.)[0]",
    "t21_no_grad_restores_after_error": """
        try:
            with torch.no_grad():
                raise ValueError("boom")
        except ValueError:
            pass
        print(torch.is_grad_enabled())""",
    "t21_requires_grad_false": """
        x = torch.tensor(1., requires_grad=True)
        x.requires_grad_(False)
        print((x * 2).requires_grad)""",
    "t21_detach": """
        x = torch.tensor([1., 2.], requires_grad=True)
        y = x.detach()
        print(y, y.requires_grad, y.is_leaf, y._version)""",
    "nonleaf_requires_grad_false": "a = torch.tensor(2., requires_grad=True); y = a * 2; y.requires_grad = False",
    "no_grad_fn_backward": "torch.ones(2).sum().backward()",
    "shape_mismatch": "(torch.ones(3, requires_grad=True) * 2).backward(torch.ones(2))",
    "backward_twice": "a = torch.tensor(2., requires_grad=True); y = a * a; y.backward(); y.backward()",
    "backward_twice_add": "b = torch.tensor(1., requires_grad=True); y = b + 1; y.backward(); y.backward(); print(b.grad)",
    "backward_twice_mul_scalar": "b = torch.tensor(1., requires_grad=True); y = b * 2; y.backward(); y.backward()",
    "retain_graph": "a = torch.tensor(2., requires_grad=True); y = a * a; y.backward(retain_graph=True); y.backward(); print(a.grad)",
    "backward_on_leaf": "a = torch.tensor(2., requires_grad=True); a.backward(); print(a.grad)",
    "backward_inputs": """
        a = torch.tensor(2., requires_grad=True); b = torch.tensor(3., requires_grad=True)
        (a * b).backward(inputs=[a])
        print(a.grad, b.grad)""",
    "backward_gradient_not_a_tensor": "x = torch.ones(2, requires_grad=True); (x * 2).backward([1., 2.])",
    "backward_inputs_empty": "a = torch.tensor(2., requires_grad=True); (a * 2).backward(inputs=[])",
    "backward_inputs_nonleaf": """
        a = torch.tensor(2., requires_grad=True)
        b = a * 3; c = b * b
        c.backward(inputs=[b])
        print(b.grad, a.grad)""",
    # ----- autograd.grad and higher order ------------------------------------------------------
    "calling_a_node_in_grad_mode_records": """
        a = torch.tensor([1., 2.], requires_grad=True); b = torch.tensor([3., 4.], requires_grad=True)
        c = a * b
        print(c.grad_fn(torch.ones(2)))
        with torch.no_grad():
            print(c.grad_fn(torch.ones(2, requires_grad=True)))""",
    "grad_basic": "x = torch.tensor(2., requires_grad=True); print(torch.autograd.grad(x ** 3, x), x.grad)",
    "grad_second_order": """
        x = torch.tensor(2., requires_grad=True)
        g, = torch.autograd.grad(x ** 3, x, create_graph=True)
        g2, = torch.autograd.grad(g, x)
        print(g, g2)""",
    "grad_unused": "x = torch.tensor(2., requires_grad=True); z = torch.tensor(1., requires_grad=True); torch.autograd.grad(x * 2, [x, z])",
    "grad_allow_unused": "x = torch.tensor(2., requires_grad=True); z = torch.tensor(1., requires_grad=True); print(torch.autograd.grad(x * 2, [x, z], allow_unused=True))",
    "grad_input_not_requiring": "x = torch.tensor(2., requires_grad=True); z = torch.tensor(1.); torch.autograd.grad(x * 2, [x, z])",
    "grad_nonleaf_input": """
        x = torch.tensor(2., requires_grad=True); y = x * 3; z = y * y
        print(torch.autograd.grad(z, y))""",
    "grad_materialize": "x = torch.tensor(2., requires_grad=True); z = torch.tensor(1., requires_grad=True); print(torch.autograd.grad(x * 2, [x, z], materialize_grads=True))",
    "grad_outputs": "x = torch.tensor([1., 2.], requires_grad=True); print(torch.autograd.grad(x * x, x, grad_outputs=torch.tensor([1., 10.])))",
    "create_graph_backward_warning": "x = torch.tensor(2., requires_grad=True); (x ** 3).backward(create_graph=True); print(x.grad)",
    "hessian_vector_product": """
        x = torch.tensor([1., 2.], requires_grad=True)
        y = (x ** 3).sum()
        g, = torch.autograd.grad(y, x, create_graph=True)
        hv, = torch.autograd.grad(g, x, grad_outputs=torch.tensor([1., 1.]))
        print(g, hv)""",
    "second_order_sin": """
        x = torch.tensor(0.5, requires_grad=True)
        g, = torch.autograd.grad(x.sin(), x, create_graph=True)
        gg, = torch.autograd.grad(g, x)
        print(round(g.item(), 5), round(gg.item(), 5))""",
    "third_order": """
        x = torch.tensor(2., requires_grad=True)
        g1, = torch.autograd.grad(x ** 4, x, create_graph=True)
        g2, = torch.autograd.grad(g1, x, create_graph=True)
        g3, = torch.autograd.grad(g2, x)
        print(g1, g2, g3)""",
    # ----- hooks -------------------------------------------------------------------------------
    "t45_register_hook_print": """
        x = torch.tensor([1., 2.], requires_grad=True)
        y = x * 2
        z = y.mean()
        y.register_hook(print)
        z.backward()""",
    "t44_intermediate_grads_freed": """
        x = torch.tensor([1., 2.], requires_grad=True); w = torch.tensor([3., 4.], requires_grad=True)
        y = x * w; z = y.sum()
        z.backward()
        print(x.grad, w.grad, y.grad, z.grad)""",
    "t46_hook_replaces_gradient": """
        x = torch.tensor([1., 2.], requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: g * 10)
        y.sum().backward()
        print(x.grad)""",
    "hook_order": """
        x = torch.tensor([1., 2.], requires_grad=True); y = x * 2; z = y * 3; o = []
        y.register_hook(lambda g: o.append(("y1", g.tolist())))
        y.register_hook(lambda g: o.append(("y2", g.tolist())))
        y.retain_grad()
        x.register_hook(lambda g: o.append(("x", g.tolist())))
        z.register_hook(lambda g: o.append(("z", g.tolist())))
        z.grad_fn.register_prehook(lambda go: o.append(("z pre", [t.tolist() for t in go])))
        z.grad_fn.register_hook(lambda gi, go: o.append(("z post", [t.tolist() if t is not None else None for t in gi])))
        z.sum().backward(); print(o, y.grad)""",
    "retain_grad_sees_hooked_value": """
        x = torch.tensor([1., 2.], requires_grad=True); y = x * 2
        y.retain_grad(); y.register_hook(lambda g: g * 10)
        y.sum().backward(); print(y.grad, x.grad)""",
    "hook_remove": """
        x = torch.tensor(1., requires_grad=True)
        h = x.register_hook(lambda g: g * 100)
        h.remove(); h.remove()
        (x * 2).backward(); print(x.grad)""",
    "leaf_hook": """
        x = torch.tensor(1., requires_grad=True)
        x.register_hook(lambda g: print("leaf got", g))
        (x * 5).backward(); print(x.grad)""",
    "hook_on_tensor_without_grad": "torch.tensor(1.).register_hook(print)",
    "node_prehook_replaces": """
        x = torch.tensor(2., requires_grad=True); y = x * 3
        y.grad_fn.register_prehook(lambda go: (go[0] * 2,))
        y.backward(); print(x.grad)""",
    "node_hook_replaces": """
        x = torch.tensor(2., requires_grad=True); w = torch.tensor(5., requires_grad=True); y = x * w
        y.grad_fn.register_hook(lambda gi, go: (gi[0] * 0, gi[1]))
        y.backward(); print(x.grad, w.grad)""",
    "post_accumulate_hook": """
        x = torch.tensor(2., requires_grad=True)
        x.register_post_accumulate_grad_hook(lambda t: print("accumulated", t.grad))
        (x * 3).backward()""",
    "hook_order_diamond": """
        x = torch.tensor(1., requires_grad=True)
        a = x * 2; b = x * 3; c = a + b
        for name, t in [("x", x), ("a", a), ("b", b), ("c", c)]:
            t.register_hook(lambda g, name=name: print(name, g))
        c.backward()""",
    # ----- in-place, versions, .data vs .detach() ---------------------------------------------
    "t31_leaf_inplace": "b = torch.tensor(1., requires_grad=True); b.add_(1)",
    "t31_leaf_iadd": "b = torch.tensor(1., requires_grad=True); b += 1",
    "t31_init_under_no_grad": """
        w = torch.tensor([1., 2.], requires_grad=True)
        with torch.no_grad():
            w.mul_(0.5); w.add_(1)
        print(w, w.is_leaf, w._version)""",
    "t32_saved_input_modified": "x = torch.ones(2, 2, requires_grad=True); y = x * 1; z = y * y; y.add_(1); z.sum().backward()",
    "t32_saved_output_modified": "x = torch.ones(3, requires_grad=True); y = x.exp(); y.add_(1); y.sum().backward()",
    "t32_sigmoid_output_mul_": "x = torch.ones(3, requires_grad=True); y = x.sigmoid(); y.mul_(2); y.sum().backward()",
    "t32_leaf_saved": "x = torch.ones(3, requires_grad=True); w = torch.ones(3); y = x * w; w.add_(1); y.sum().backward()",
    "t33_detach_caught": "x = torch.ones(3, requires_grad=True); y = x.sigmoid(); y.detach().zero_(); y.sum().backward()",
    "t33_data_silently_wrong": "x = torch.ones(3, requires_grad=True); y = x.sigmoid(); y.data.zero_(); y.sum().backward(); print(x.grad)",
    "t33_data_and_detach_share_memory": """
        x = torch.tensor([1., 2.], requires_grad=True); y = x * 2
        d = y.detach(); e = y.data
        d[0] = 10.; print(y); e[1] = 20.; print(y, y._version, d._version, e._version)""",
    "mm_saves_only_needed": "x = torch.ones(2, 2, requires_grad=True); w = torch.ones(2, 2); y = x @ w; w.add_(1); y.sum().backward()",
    "mm_self_modified": "x = torch.ones(2, 2, requires_grad=True); w = torch.ones(2, 2); y = w @ x; w.add_(1); y.sum().backward()",
    "add_saves_nothing": "x = torch.ones(2, requires_grad=True); w = torch.ones(2); y = x + w; w.add_(1); y.sum().backward(); print(x.grad)",
    "version_counter_counts": """
        x = torch.ones(2); print(x._version)
        x.add_(1); x.mul_(2); x[0] = 5; x += 1
        print(x._version, x)""",
    "inplace_names_on_nonleaf": """
        x = torch.ones(3, requires_grad=True)
        for op in ["add_(1)", "sub_(1)", "mul_(2)", "div_(2)", "zero_()", "fill_(2)", "clamp_(0, 1)", "exp_()", "relu_()"]:
            y = x * 1; eval("y." + op); print(op, y.grad_fn.name(), y._version)""",
    "setitem_copyslices": """
        x = torch.ones(3, requires_grad=True); y = x * 2
        y[0] = 5.
        print(y, y.grad_fn.name(), y.grad_fn.next_functions[1], y._version)
        y.sum().backward(); print(x.grad)""",
    "copy_backwards": """
        x = torch.ones(3, requires_grad=True); src = torch.tensor([1., 2., 3.], requires_grad=True)
        y = x * 2; y.copy_(src * 3); print(y.grad_fn.name()); y.sum().backward(); print(x.grad, src.grad)""",
    "inplace_gradient_correct": """
        x = torch.tensor([1., 2.], requires_grad=True)
        y = x * 1; y.mul_(y); y.sum().backward(); print(x.grad)""",
    "iadd_on_nonleaf": "x = torch.ones(2, requires_grad=True); y = x * 2; y += x; y.sum().backward(); print(y, x.grad)",
    "int_add_float_inplace": "torch.ones(2, dtype=torch.long).add_(1.5)",
    # ----- values and gradients of ops ----------------------------------------------------------
    "grad_broadcast": """
        x = torch.ones(2, 3, requires_grad=True); b = torch.tensor([1., 2., 3.], requires_grad=True)
        (x * b).backward(torch.tensor([[1., 2., 3.], [4., 5., 6.]]))
        print(x.grad, b.grad)""",
    "grad_mean_sum_dims": """
        m = torch.tensor([[1., 5., 3.], [4., 2., 6.]], requires_grad=True)
        (m.mean(1).sum() + m.sum(0, keepdim=True).mean()).backward(); print(m.grad)""",
    "grad_max_ties_split": "x = torch.tensor([1., 3., 3.], requires_grad=True); x.max().backward(); print(x.grad)",
    "grad_max_dim_first_index": "x = torch.tensor([[1., 3., 3.]], requires_grad=True); x.max(1)[0].sum().backward(); print(x.grad)",
    "grad_relu_abs_at_zero": "x = torch.tensor([0., -1., 2.], requires_grad=True); (x.relu() + x.abs()).sum().backward(); print(x.grad)",
    "grad_clamp_bounds": "x = torch.tensor([0., 0.5, 1., 2.], requires_grad=True); x.clamp(0, 1).sum().backward(); print(x.grad)",
    "grad_maximum_ties": "x = torch.tensor([1., 2.], requires_grad=True); y = torch.tensor([1., 3.], requires_grad=True); torch.maximum(x, y).sum().backward(); print(x.grad, y.grad)",
    "grad_pow_zero_exponent": "x = torch.tensor([0., 2.], requires_grad=True); (x ** 0).sum().backward(); print(x.grad)",
    "grad_pow_tensor_exponent": "x = torch.tensor([1., 2.], requires_grad=True); y = torch.tensor([3., 0.5], requires_grad=True); (x ** y).sum().backward(); print(x.grad, y.grad)",
    "grad_index_repeat": "x = torch.tensor([1., 2., 3.], requires_grad=True); x[[0, 0, 2]].sum().backward(); print(x.grad)",
    "grad_bool_mask": "x = torch.tensor([1., -2., 3.], requires_grad=True); x[x > 0].sum().backward(); print(x.grad)",
    "grad_slice_step": "x = torch.arange(6.).requires_grad_(); x[1::2].sum().backward(); print(x.grad)",
    "grad_cat_stack": """
        a = torch.tensor([1., 2.], requires_grad=True); b = torch.tensor([3.], requires_grad=True)
        c = torch.cat([a, b]); s = torch.stack([a, a * 2])
        (c * torch.tensor([1., 2., 3.])).sum().backward(); s.sum().backward()
        print(a.grad, b.grad)""",
    "grad_where": "x = torch.tensor([1., -1.], requires_grad=True); torch.where(x > 0, x * 2, x * 3).sum().backward(); print(x.grad)",
    "grad_expand": "x = torch.tensor([[1.], [2.]], requires_grad=True); x.expand(2, 3).sum().backward(); print(x.grad)",
    "grad_permute_view": "x = torch.arange(6.).reshape(2, 3).requires_grad_(); (x.T * torch.tensor([[1., 2.], [3., 4.], [5., 6.]])).sum().backward(); print(x.grad)",
    "grad_std_var": "x = torch.tensor([1., 2., 4.], requires_grad=True); (x.std() + x.var()).backward(); print(x.grad)",
    "grad_log_softmax": "x = torch.tensor([[1., 2., 3.]], requires_grad=True); y = x.log_softmax(1); y[0, 0].backward(); print(x.grad)",
    "grad_softmax": "x = torch.tensor([[1., 2., 3.]], requires_grad=True); y = x.softmax(1); (y * torch.tensor([[1., 0., 0.]])).sum().backward(); print(x.grad)",
    "grad_matmul_batched": """
        x = torch.ones(2, 2, 3, requires_grad=True); w = torch.tensor([[1., 2.], [3., 4.], [5., 6.]], requires_grad=True)
        (x @ w).sum().backward(); print(x.grad, w.grad)""",
    "grad_vector_matrix": "v = torch.tensor([1., 2.], requires_grad=True); m = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True); (v @ m).sum().backward(); print(v.grad, m.grad)",
    "grad_sigmoid_tanh": "x = torch.tensor([0., 1.], requires_grad=True); (x.sigmoid() + x.tanh()).sum().backward(); print(x.grad)",
    "grad_div_both": "x = torch.tensor([1., 2.], requires_grad=True); y = torch.tensor([4., 8.], requires_grad=True); (x / y).sum().backward(); print(x.grad, y.grad)",
    "grad_rsub_rdiv": "x = torch.tensor([1., 2.], requires_grad=True); (1 - x + 2 / x).sum().backward(); print(x.grad)",
    "grad_sqrt_log_exp": "x = torch.tensor([1., 4.], requires_grad=True); (x.sqrt() + x.log() + x.exp()).sum().backward(); print(x.grad)",
    "grad_float64": "x = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True); (x * x).sum().backward(); print(x.grad)",
    "grad_mixed_dtype": "x = torch.tensor([1., 2.], requires_grad=True); w = torch.tensor([3., 4.], dtype=torch.float64, requires_grad=True); y = x * w; y.sum().backward(); print(y.dtype, x.grad, w.grad)",
    "t34_sin_derivative": """
        x = torch.linspace(-5, 5, 100, requires_grad=True)
        y = torch.sin(x); y.backward(torch.ones_like(x))
        print(torch.allclose(x.grad, torch.cos(x.detach()), atol=1e-6), x.grad[:3])""",
    "t30_vjp": """
        x = torch.tensor([1., 2., 3.], requires_grad=True)
        y = x * x * torch.tensor([1., 2., 3.])
        v = torch.tensor([1., 0.1, 0.01])
        y.backward(v); print(x.grad)""",
    # ----- errors of ops --------------------------------------------------------------------
    "err_matmul_dtype": "torch.ones(2, 2) @ torch.ones(2, 2, dtype=torch.float64)",
    "err_matmul_shape": "torch.ones(2, 3) @ torch.ones(2, 3)",
    "err_add_shape": "torch.ones(2, 3) + torch.ones(2)",
    "err_view_size": "torch.ones(2, 3).view(4)",
    "err_view_noncontiguous": "torch.ones(2, 3).T.view(6)",
    "err_mean_int": "torch.ones(2, dtype=torch.long).mean()",
    "err_item_many": "torch.ones(2).item()",
    "err_index_oob": "torch.ones(2)[5]",
    "err_too_many_indices": "torch.ones(2)[0, 0]",
    "err_cat_sizes": "torch.cat([torch.ones(2, 3), torch.ones(3, 2)])",
    "err_numpy_requires_grad": "torch.ones(2, requires_grad=True).numpy()",
    "err_bool_ambiguous": "bool(torch.ones(2))",
    "err_dim_out_of_range": "torch.ones(2, 3).sum(2)",
    "err_len_0d": "len(torch.tensor(1.))",
    "err_retain_grad_no_grad": "torch.ones(2).retain_grad()",
    "detach_numpy_shares": "x = torch.ones(2, requires_grad=True); n = x.detach().numpy(); n[0] = 5; print(x)",
    "from_numpy_shares": "import numpy as np; a = np.array([1., 2.]); t = torch.from_numpy(a); a[0] = 9; print(t, t.dtype)",
    # ----- custom Function ------------------------------------------------------------------
    "custom_function": """
        class MyCube(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 3
            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * 3 * x ** 2
        x = torch.tensor(2., requires_grad=True)
        y = MyCube.apply(x)
        print(y, type(y.grad_fn).__name__, y.grad_fn.name())
        y.backward(); print(x.grad)""",
    "custom_function_wrong_count": """
        class Bad(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x * y
            @staticmethod
            def backward(ctx, g):
                return g
        x = torch.tensor(2., requires_grad=True)
        Bad.apply(x, x).backward()""",
    "custom_function_wrong_shape": """
        class Bad(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2
            @staticmethod
            def backward(ctx, g):
                return torch.ones(3)
        x = torch.ones(2, requires_grad=True)
        Bad.apply(x).sum().backward()""",
    "custom_function_saved_after_free": """
        class Sq(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x
            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 2 * x * g
        x = torch.tensor(3., requires_grad=True)
        y = Sq.apply(x); y.backward(); print(x.grad); y.grad_fn.saved_tensors""",
    "custom_function_needs_input_grad": """
        class Show(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                print(ctx.needs_input_grad)
                return x + y
            @staticmethod
            def backward(ctx, g):
                return g, g
        Show.apply(torch.tensor(1., requires_grad=True), torch.tensor(2.))""",
    "custom_function_next_functions": """
        class Id(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.clone()
            @staticmethod
            def backward(ctx, g):
                return g
        a = torch.tensor(1., requires_grad=True)
        y = Id.apply(a * 2)
        print(y, y.grad_fn.next_functions[0][0].name(), y.requires_grad, y.is_leaf)""",
    "hook_changes_size": """
        x = torch.tensor([1., 2.], requires_grad=True); y = x * 2
        def bad(g):
            return g[0]
        y.register_hook(bad); y.sum().backward()""",
    "hook_changes_type": """
        x = torch.tensor([1., 2.], requires_grad=True); y = x * 2
        y.register_hook(lambda g: g.double()); y.sum().backward()""",
    "variable_is_a_tensor": """
        v = torch.autograd.Variable(torch.tensor([1.]), requires_grad=True)
        print(v, type(v).__name__, v.is_leaf)""",
    "dir_of_nodes": """
        a = torch.tensor(2., requires_grad=True); b = torch.tensor(3., requires_grad=True); c = a + b
        print([n for n in dir(c.grad_fn) if not n.startswith("_")])
        print([n for n in dir(c.grad_fn.next_functions[0][0]) if not n.startswith("_")])
        print(c.grad_fn.requires_grad)""",
    "accumulate_grad_node_hooks": """
        a = torch.tensor(2., requires_grad=True); d = torch.tensor(4., requires_grad=True); e = (a * 3) * d
        ag = e.grad_fn.next_functions[1][0]
        ag.register_prehook(lambda go: print("pre", go))
        ag.register_hook(lambda gi, go: print("post", gi, go))
        d.register_hook(lambda g: print("tensor hook", g))
        e.backward()""",
    "custom_node_repr": """
        class MyExp(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x.exp()
                ctx.save_for_backward(y)
                return y
            @staticmethod
            def backward(ctx, g):
                (y,) = ctx.saved_tensors
                return g * y
        x = torch.tensor([0., 1.], requires_grad=True)
        y = MyExp.apply(x)
        print(y.grad_fn, type(y.grad_fn).__name__)
        y.sum().backward(); print(x.grad)""",
    "float_of_requires_grad_warns": "x = torch.tensor(2., requires_grad=True); print(float(x), x.item(), int(x))",
    "setitem_on_leaf": "w = torch.ones(3, requires_grad=True); w[0] = 5.",
    "type_of_tensor": "print(type(torch.tensor([1.])), type(torch.tensor([1.])).__name__)",
    "anomaly_nan": """
        x = torch.tensor([0., 1.], requires_grad=True)
        with torch.autograd.detect_anomaly():
            y = x.sqrt() * torch.tensor([0., 1.])
            y.sum().backward()""",
    "anomaly_version_hint": """
        x = torch.ones(3, requires_grad=True)
        with torch.autograd.set_detect_anomaly(True):
            y = x.exp(); y.add_(1)
            y.sum().backward()""",
    "anomaly_flags": """
        print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
        with torch.autograd.set_detect_anomaly(True, check_nan=False):
            print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
        print(torch.is_anomaly_enabled())""",
    "anomaly_custom_function_nan": """
        class F(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a + b
            @staticmethod
            def backward(ctx, g):
                return g, g * float("nan")
        a = torch.tensor(1., requires_grad=True)
        import warnings
        with warnings.catch_warnings(record=True) as caught, torch.autograd.set_detect_anomaly(True):
            warnings.simplefilter("always")
            try:
                F.apply(a, a).backward()
            except RuntimeError as error:
                print(error)
        print([str(w.message).splitlines()[0] for w in caught])""",
    "no_numpy_warnings": """
        for f in [lambda t: t.log(), lambda t: 1 / t, lambda t: t.sqrt(), lambda t: t ** -1,
                  lambda t: (t * 1000).exp(), lambda t: t / t]:
            x = torch.tensor([0., -1., 1.], requires_grad=True)
            y = f(x)
            y.backward(torch.ones(3))
            print(y, x.grad)""",
    "grad_dtype": """
        x = torch.tensor([1., 2.], requires_grad=True)
        print(x.grad_dtype)
        x.grad_dtype = torch.float64
        (x * 2).sum().backward()
        print(x.grad, x.grad_dtype)""",
    "vars_of_tensors": """
        a = torch.tensor(2., requires_grad=True); b = a * 3; b.backward()
        print(vars(a), vars(b), vars(a.detach()), vars(a.data), a.grad)""",
    "create_graph_then_plain_backward": """
        import warnings
        warnings.simplefilter("ignore")
        x = torch.tensor(2., requires_grad=True)
        (x ** 3).backward(create_graph=True)
        print(x.grad)
        (x ** 2).backward()
        print(x.grad)""",
    "grad_accumulates_in_place": """
        x = torch.tensor(2., requires_grad=True)
        (x * 2).backward(); g = x.grad; print(g._version)
        (x * 2).backward(); print(g is x.grad, g._version, x.grad)""",
    "split_chunk_unbind": """
        m = torch.arange(6.).reshape(3, 2).requires_grad_()
        a, b = m.split(2)
        print(a, b, a.grad_fn.name(), b.grad_fn is a.grad_fn, a.output_nr, b.output_nr)
        u = m.unbind(1)
        print(u, u[0].grad_fn.name(), u[1].output_nr)
        c = m.chunk(3)
        print(len(c), c[2].grad_fn.name(), m.split([1, 2]))
        (a.sum() * 2 + u[1].sum()).backward()
        print(m.grad)""",
    "split_and_chunk_refuse_wrong_sizes": """
        x = torch.zeros(3, 5)
        for f in (lambda: x.split([2, 2], 1), lambda: x.split([2, 4], -1), lambda: x.split([-1, 6], 1),
                  lambda: torch.split(x, [3], 0), lambda: x.split(0, 1), lambda: x.split(-1), lambda: x.chunk(0),
                  lambda: x.chunk(-2, 1), lambda: x.split([5, 0], 1), lambda: torch.zeros(0, 2).split(0)):
            try:
                print([tuple(p.shape) for p in f()])
            except RuntimeError as e:
                print(e)""",
    "inplace_on_view": """
        x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
        y = x * 2
        v = y[0]
        v.mul_(3)
        print(y, y.grad_fn.name(), v.grad_fn.name(), y._version, v._version, v._base is y)
        y.sum().backward(); print(x.grad)""",
    "inplace_plus_equals_on_index": """
        x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
        y = x * 2
        y[0] += 1
        print(y, y.grad_fn.name(), [f.name() for f, _ in y.grad_fn.next_functions], y._version)
        (y * y).sum().backward(); print(x.grad)""",
    "inplace_on_view_with_tensor_operand": """
        x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
        w = torch.tensor([10., 20.], requires_grad=True)
        y = x * 1
        y[:, 1].add_(w)
        (y * y).sum().backward(); print(y, x.grad, w.grad)""",
    "inplace_on_view_of_leaf": """
        x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
        x[0].mul_(2)""",
    "nll_loss_ignored_target_is_zero": """
        F = torch.nn.functional
        x = torch.tensor([[0.5, 1.0], [2.0, 3.0]], requires_grad=True)
        print(F.nll_loss(x, torch.tensor([1, -100]), reduction="none"))
        print(F.nll_loss(x, torch.tensor([-100, -100]), reduction="sum"))
        print(F.nll_loss(x, torch.tensor([1, -100]), weight=torch.tensor([1., 0.]), reduction="none"))""",
    "zero_gradients_are_0_not_minus_0": """
        x = torch.tensor([1., -2.], requires_grad=True)
        v = torch.tensor([5., 6.], requires_grad=True)
        y = x * 1; y.zero_(); (y * -1).sum().backward(); print(x.grad)
        x.grad = None; y = x * 1; y.fill_(3.); (y * -1).sum().backward(); print(x.grad)
        x.grad = None; y = x * 1; y.copy_(v); (y * -1).sum().backward(); print(x.grad, v.grad)
        x.grad = None; (x ** 0 * -1).sum().backward(); print(x.grad)
        x.grad = None; (x ** torch.tensor([0., 3.]) * -1).sum().backward(); print(x.grad)
        x.grad = None; v.grad = None
        (torch.where(x > 0, x, v) * -1).sum().backward(); print(x.grad, v.grad)
        x.grad = None; s = x.sign(); print(s); (s * -1).sum().backward(); print(x.grad)
        x.grad = None; v.grad = None
        (torch.maximum(x, v) * -1).sum().backward(); print(x.grad, v.grad)
        x.grad = None; v.grad = None
        (torch.minimum(x, v) * -1).sum().backward(); print(x.grad, v.grad)
        m = torch.tensor([[1., 3.], [2., 3.]], requires_grad=True)
        (m.max() * -1).backward(); print(m.grad)
        m.grad = None; (m.max(0)[0] * -1).sum().backward(); print(m.grad)
        m.grad = None; (m.min(1).values * -1).sum().backward(); print(m.grad)""",
    "linear_bias_and_expand_errors": """
        F = torch.nn.functional
        x = torch.tensor([[1., 2.], [3., 4.]])
        w = torch.tensor([[1., 0.5], [2., 1.], [0., 1.]], requires_grad=True)
        for b in (torch.ones(3), torch.ones(2, 1), torch.tensor(2.), torch.ones(2, 3),
                  torch.ones(3, dtype=torch.float64), torch.ones(2, 2, 3), torch.ones(4),
                  torch.ones(5, 3)):
            try:
                print(F.linear(x, w, b))
            except RuntimeError as error:
                print(error)
        cases = (((4,), (2, 3)), ((2, 2, 3), (2, 3)), ((3,), (2, 2)), ((3, 1), (2, 3, 4)))
        for shape, sizes in cases:
            try:
                print(torch.ones(*shape, dtype=torch.int64).expand(*sizes).shape)
            except RuntimeError as error:
                print(error)""",
    "squeeze_overloads_and_vector_matrix_product": """
        x = torch.ones(1, 3, 1, requires_grad=True) * 1
        for y in (x.squeeze(), x.squeeze(0), x.squeeze(-1), x.squeeze((0,)), x.squeeze([0, 2])):
            print(y.shape, y.grad_fn.name())
        v = torch.tensor([1., 2., 3.], requires_grad=True)
        m = torch.tensor([[1., 2.], [3., 4.], [5., 6.]], requires_grad=True)
        out = v @ m
        print(out, out.grad_fn.next_functions)
        (out * torch.tensor([1., -2.])).sum().backward(); print(v.grad, m.grad)""",
    "norm_is_one_node_with_pytorch_gradients": """
        x = torch.tensor([[3., -4., 0.], [0., 0., 0.], [-2., 2., 1.]], requires_grad=True)
        for kw in ({}, {"p": "fro"}, {"dim": 1}, {"p": 1, "dim": 0, "keepdim": True},
                   {"p": float("inf"), "dim": 1}, {"p": float("-inf")}, {"p": 0, "dim": 1},
                   {"p": 3, "dim": 1}, {"p": 0.5, "dim": 1}):
            x.grad = None
            n = x.norm(**kw)
            print(kw, n, n.grad_fn.name())
            (n * -torch.ones_like(n)).sum().backward(); print(x.grad)
        try:
            torch.tensor([3, 4]).norm()
        except RuntimeError as error:
            print(error)""",
    "abs_backward_records_sgn": """
        x = torch.tensor([-1.5, 0., 2.], requires_grad=True)
        y = (x.abs() * torch.tensor([1., -2., 3.])).sum()
        (g,) = torch.autograd.grad(y, x, create_graph=True)
        print(g, g.grad_fn.next_functions)
        print(x.sgn(), x.sgn().grad_fn)
        (g.sum() + x.sgn().sum()).backward(); print(x.grad)""",
    "matmul_records_pytorchs_graph_for_every_rank": """
        def names(node):
            if node is None:
                return "-"
            children = ", ".join(names(child) for child, _ in node.next_functions)
            return node.name() + (f"({children})" if children else "")
        cases = (((2, 3, 4), (4, 5), True, True), ((2, 3, 4), (4, 5), True, False),
                 ((2, 3, 4), (4,), True, True), ((3,), (2, 3, 4), True, True),
                 ((3,), (2, 3, 4), False, True), ((2, 3), (4, 3, 5), True, True),
                 ((4, 2, 3), (4, 3, 5), True, True), ((1, 2, 3), (4, 3, 5), True, True),
                 ((4, 2, 3), (3,), True, False), ((2, 1, 2, 3), (4, 3, 2), True, True))
        for a, b, needs_a, needs_b in cases:
            # small integers: every sum is exact, whatever order BLAS adds in
            x = torch.tensor([i % 5 - 2. for i in range(torch.zeros(a).numel())]).reshape(a)
            y = torch.tensor([i % 3 - 1. for i in range(torch.zeros(b).numel())]).reshape(b)
            x.requires_grad_(needs_a)
            y.requires_grad_(needs_b)
            out = x @ y
            print(a, b, out.shape, names(out.grad_fn))
            upstream = torch.tensor([i % 4 - 1.5 for i in range(out.numel())]).reshape(out.shape)
            (out * upstream).sum().backward()
            print(out.sum(), x.grad, y.grad)
        z = torch.ones(2, 3, requires_grad=True)
        print(names(z.t().reshape(-1).grad_fn), names(z.t().reshape(3, 2).grad_fn))""",
    "shape_and_dtype_errors_of_products_and_broadcasts": """
        cases = (((2, 3, 4), (5, 6), False, None), ((2, 3, 4), (5,), False, None),
                 ((2, 3, 4), (5, 4, 2), False, None), ((4, 2, 3), (4, 5, 2), True, None),
                 ((3,), (2, 4, 5), True, None), ((3,), (4,), False, None),
                 ((2, 3), (4,), False, None), ((3,), (4, 2), False, None),
                 ((2, 3), (3,), False, "b"), ((3,), (3,), False, "b"),
                 ((2, 3, 4), (2, 4, 2), False, "b"), ((2, 3, 4), (4,), False, "a"),
                 ((4,), (2, 4, 2), False, "b"), ((2, 3), (3,), False, "a"))
        for a, b, needs_grad, double in cases:
            x = torch.ones(*a, dtype=torch.float64 if double == "a" else torch.float32)
            y = torch.ones(*b, dtype=torch.float64 if double == "b" else torch.float32)
            try:
                print((x.requires_grad_(needs_grad) @ y).shape)
            except RuntimeError as error:
                print(error)
        for a, b in (((2,), (3,)), ((3,), (2,)), ((2, 3), (4, 3)), ((4, 1, 3), (2, 2)),
                     ((0,), (1,)), ((1,), (0,)), ((0,), (2,)), ((3, 1), (1, 0))):
            try:
                print((torch.ones(*a) + torch.ones(*b)).shape)
            except RuntimeError as error:
                print(error)""",
    "prod_logsumexp_masked_fill_are_single_nodes": """
        for values in ([[2., -3., 4.], [1., 5., -2.]], [[2., 0., 4.], [1., 5., -2.]],
                       [[0., 0., 4.], [1., 5., -2.]], [[0., 3., 4.], [0., 5., -2.]]):
            for kw in ({}, {"dim": 1}, {"dim": 0, "keepdim": True}):
                x = torch.tensor(values, requires_grad=True)
                out = x.prod(**kw)
                (out * torch.full_like(out, -1.5)).sum().backward()
                print(kw, out, x.grad)
        print(torch.tensor([2, 3, 4]).prod(), torch.prod(torch.tensor([[1., 2.], [3., 4.]]), 1))
        x = torch.tensor([[1., -2., 3.], [float("-inf"), float("-inf"), float("-inf")]],
                         requires_grad=True)
        out = x.logsumexp(1)
        print(out)
        torch.logsumexp(x[:1], (0, 1), keepdim=True).backward(); print(x.grad)
        x = torch.tensor([[1., -2., 3.], [0.5, 4., -1.]], requires_grad=True)
        value = torch.tensor(7., requires_grad=True)
        for fill in (0., value):
            out = x.masked_fill(x > 0.8, fill)
            (out * torch.tensor([[-1., 2., 3.], [4., -5., 6.]])).sum().backward()
            print(out, x.grad, value.grad)
        print(torch.tensor([1, 2, 3]).masked_fill(torch.tensor([True, False, True]), 0))""",
    "clip_grad_norm_and_value_and_cuda_check": """
        device = "cuda" if torch.cuda.is_available() else "cpu"
        layer = torch.nn.Linear(3, 2).to(device)
        with torch.no_grad():
            layer.weight.copy_(torch.tensor([[1., -2., 3.], [0.5, 4., -1.]]))
            layer.bias.fill_(0.5)
        (layer(torch.tensor([[1., 2., 3.]])) ** 2).sum().backward()
        print(torch.nn.utils.clip_grad_norm_(layer.parameters(), 1.0), layer.weight.grad)
        print(torch.nn.utils.clip_grad_norm_(layer.parameters(), 10.0, norm_type="inf"))
        print(torch.nn.utils.clip_grad_norm_(layer.parameters(), 0.5, norm_type=1), layer.bias.grad)
        print(torch.nn.utils.clip_grad_norm_([], 1.0), torch.cuda.device_count())
        print(torch.nn.utils.clip_grad_value_(layer.parameters(), 0.1), layer.weight.grad)
        x = torch.ones(2, requires_grad=True)
        x.grad = torch.tensor([3., 4.])
        print(torch.nn.utils.clip_grad_norm_(x, 1.0), x.grad)
        x.grad[0] = float("nan")
        torch.nn.utils.clip_grad_norm_(x, 1.0, error_if_nonfinite=True)""",
    "broadcast_errors_name_the_last_misfit_and_contiguous_copies": """
        for a, b in (((3, 2), (2, 3)), ((2, 3, 4), (5, 3, 1)), ((2, 1, 3), (3, 3))):
            try:
                torch.ones(*a) + torch.ones(*b)
            except RuntimeError as error:
                print(error)
        try:
            torch.where(torch.ones(2, 3) > 0, torch.ones(4, 3), torch.ones(5, 1, 1))
        except RuntimeError as error:
            print(error)
        x = torch.ones(2, 3, requires_grad=True)
        y = torch.ones(2, 3, 4)
        c = x.t().contiguous()
        print(c.is_contiguous(), c.grad_fn, c.reshape(-1).grad_fn, x.t().clone().is_contiguous())
        print(x[:, ::2].clone().is_contiguous(), x.expand(2, 2, 3).clone().is_contiguous())
        print(y.permute(2, 0, 1).clone().permute(1, 2, 0).is_contiguous())
        print(y[:, :, ::2].permute(2, 0, 1).clone().permute(1, 2, 0).is_contiguous())
        x.permute()""",
    "setitem_records_index_put_fill_copy_or_copyslices": """
        x = torch.ones(3, requires_grad=True)
        w = torch.tensor([7., 8.], requires_grad=True)
        s = torch.tensor(2., requires_grad=True)
        for index in ((slice(None),), ..., [0], x > 0, torch.tensor([0, 1]), 0):
            try:
                x[index] = 1.
            except RuntimeError as error:
                print(error)
        y = x * 2
        y[torch.tensor([True, False, True])] = w
        print(y, y.grad_fn.next_functions, y._version)
        (y * torch.tensor([1., -2., 3.])).sum().backward(); print(x.grad, w.grad)
        x.grad = w.grad = None
        y = x * 2; y[[2, 2]] = w * 1; (y * -1).sum().backward(); print(x.grad, w.grad)
        x.grad = None
        y = x * 2; y.fill_(s); print(y.grad_fn); (y * torch.tensor([1., -2., 4.])).sum().backward()
        print(x.grad, s.grad)
        for index, value in ((..., torch.tensor([1., 2., 3.])), (slice(None), torch.tensor(4.)),
                             (slice(0, None), 1.), ((..., slice(None)), x), (slice(0, 2), 1.)):
            y = x * 2; y[index] = value; print(y.grad_fn.name())
        m = torch.ones(2, 3) * x
        for index in ((slice(None), slice(None)), (..., slice(0, 3)), (0, slice(None))):
            y = m * 1; y[index] = 1.; print(y.grad_fn.name())
        x.grad = None; y = x * 2; y[0] = 5.; (y * -1).sum().backward(); print(x.grad)
        y.fill_(torch.ones(2))""",
    "inplace_on_views_record_one_copyslices_holding_the_op": """
        def edges(t):
            return [None if n is None else n.name() for n, _ in t.grad_fn.next_functions]
        x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
        w = torch.tensor([5., 6.], requires_grad=True)
        y = x * 1; v = y[0]; v.mul_(3)
        print(y.grad_fn.name(), edges(y), v.grad_fn.name(), edges(v), y._version, v._version)
        (y * torch.tensor([[1., -2.], [3., 4.]])).sum().backward(); print(x.grad)
        x.grad = None
        y = x * 1; y[:, 1].add_(w); print(edges(y)); (y * y).sum().backward(); print(x.grad, w.grad)
        for step in ("y[0] += w", "y[0] *= w", "y[0].exp_()", "y[0].zero_()", "y[1] = w"):
            y = x * 1
            exec(step)
            print(step, edges(y))
        x.grad = w.grad = None
        y = x * 1; y[1] = w; (y * -1).sum().backward(); print(x.grad, w.grad)
        z = torch.zeros(2, 2); z[0] = w; print(z.grad_fn.name(), edges(z), z.is_leaf)
        x.grad = None
        y = x * 1; y[0].mul_(3)
        y.sum().backward(retain_graph=True); y.sum().backward(); print(x.grad)
        y = torch.tensor([2., 2., 2.], requires_grad=True)
        m = torch.tensor([[1., 1.], [1., 3.]], requires_grad=True)
        y.std().backward(); (m.std(1) * torch.tensor([-1., 2.])).sum().backward()
        print(y.grad, m.grad)
        seen = []
        y = x * 1; y[1] = w; y.retain_grad()
        y.register_hook(lambda g: seen.append(g))
        y.grad_fn.register_prehook(lambda grads: seen.append("pre"))
        y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append(len(grad_inputs)))
        (y * 2).sum().backward()
        print(y.grad, seen, sorted(n for n in dir(y.grad_fn) if n[0] != "_"))
        y = x * 1; y[0].mul_(w); y.sum().backward(); y.sum().backward()""",
    "mean_var_std_of_nothing_and_without_degrees_of_freedom": """
        print(torch.zeros(0, 3).mean(1), torch.zeros(3, 0).mean(1), torch.zeros(0).mean())
        print(torch.zeros(0, 3).var(1), torch.zeros(3, 0).var(1), torch.zeros(0, 3).std(1))
        print(torch.tensor([2.]).var(), torch.ones(3, 1).std(1))
        print(torch.ones(2, 3).var(1, correction=3))
        x = torch.tensor([3.], requires_grad=True)
        x.var().backward(); print(x.grad)
        x = torch.tensor([[3.], [1.]], requires_grad=True)
        x.std(1).sum().backward(); print(x.grad)
        x = torch.tensor([[3., 4.], [1., 1.]], requires_grad=True)
        x.var(1, correction=2).sum().backward(); print(x.grad)""",
    # ----- saved tensors: grad_fn._saved_*, _raw_saved_*, saved_tensors_hooks, save_on_cpu ------
    "saved_tensors_tutorial_identity": """
        a = torch.tensor([1., -2., 3.], requires_grad=True)
        y = a.pow(2)
        print(y.grad_fn._saved_self, y.grad_fn._saved_self is a, y.grad_fn._saved_exponent)
        y = a.exp()
        print(y.equal(y.grad_fn._saved_result), y.grad_fn._saved_result is y)
        print(y.grad_fn._saved_result.grad_fn is y.grad_fn, y.grad_fn._saved_result is y.grad_fn._saved_result)
        b = a * 1; z = b.sin(); print(z.grad_fn._saved_self is b)
        w = torch.tensor([4., 5., 6.])
        for out in (a * w, w * a, a * 2, a / w, w / a, a / 2.5, a * True, 2 ** a, a ** a, a.clamp(min=-1)):
            fn = out.grad_fn
            print(fn.name(), [(n, getattr(fn, n)) for n in dir(fn) if n.startswith("_saved")])
            print([type(getattr(fn, n)).__name__ for n in dir(fn) if n.startswith("_raw_saved")])""",
    "saved_tensors_numbers_and_sizes": """
        m = torch.tensor([[1., 5., 3.], [4., 2., 6.]], requires_grad=True)
        x = torch.tensor([1., 2., 3.], requires_grad=True)
        for out in (m.sum(), m.sum(-1), m.mean((0, 1)), m.var(), m.var(1), m.std(unbiased=False),
                    m.prod(1), m.max(-1)[0], m.norm(p=3, dim=-1), m.logsumexp(-1), m.T, m.t(),
                    m.transpose(-1, 0), m.view(6), m.unsqueeze(-1), m.unsqueeze(0).squeeze(-3),
                    m[-1], m[:, -2:], m[:, ::2], m[[0, 1]], torch.cat([m, m], -1), torch.stack([m, m], -1),
                    m.softmax(-1), m.log_softmax(1), m.split(1)[0], m.split([2, 1], 1)[0], m.unbind(1)[0],
                    m @ m.T, m @ x, x @ x, x.add(x, alpha=2), 1 - x, x.expand(2, 3)):
            fn = out.grad_fn
            print(fn.name(), [(n, getattr(fn, n)) for n in dir(fn) if n.startswith("_saved")])""",
    "saved_tensors_after_backward_and_in_place": """
        x = torch.tensor([1., 2., 3.], requires_grad=True)
        y = x.exp(); y.sum().backward()
        print(y.grad_fn._raw_saved_result is not None)
        y.grad_fn._saved_result""",
    "saved_tensors_unsaved_stay_none_after_backward": """
        x = torch.tensor([1., 2., 3.], requires_grad=True)
        y = x * torch.tensor([4., 5., 6.]); y.sum().backward()
        print(y.grad_fn._saved_self, m := x.sum(0)); m.backward(); print(m.grad_fn._saved_dim)
        z = x + 2; z.sum().backward(); print(z.grad_fn._saved_alpha)
        y.grad_fn._saved_other""",
    "saved_tensors_modified_in_place_is_caught_on_access": """
        x = torch.tensor([1., 2., 3.], requires_grad=True)
        b = x * 1; y = b.sin(); b.add_(1)
        y.grad_fn._saved_self""",
    "saved_tensors_hooks_tutorial": """
        def pack_hook(x):
            print("Packing", x)
            return x
        def unpack_hook(x):
            print("Unpacking", x)
            return x
        a = torch.ones(5, requires_grad=True)
        b = torch.ones(5, requires_grad=True) * 2
        with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
            y = a * b
            z = a.exp() * 3
        y.sum().backward()
        print(a.grad)
        print(z.grad_fn._saved_self, z.grad_fn._saved_other)
        print(z.grad_fn.next_functions[0][0]._saved_result)""",
    "saved_tensors_hooks_pack_what_each_op_saves": """
        def pack(t):
            print("pack", tuple(t.shape), t.dtype, t.requires_grad, torch.is_grad_enabled())
            return t.detach()
        def unpack(t):
            print("unpack", tuple(t.shape))
            return t
        x = torch.tensor([[1., -2.], [3., 4.]], requires_grad=True)
        w = torch.tensor([[2., 1.], [0., 1.]], requires_grad=True)
        with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
            outs = [x @ w, x / w, x ** w, 2 ** x, x ** 3, x * 2, torch.maximum(x, w), x.sum(),
                    torch.where(x > 0, x, w), x.masked_fill(x > 2, 0.), x[[0, 1]], x.relu(),
                    x.max(1)[0], x.softmax(1), torch.nn.functional.mse_loss(x, w), x.std(), x.abs()]
        for out in outs:
            print(out.grad_fn.name()); out.sum().backward()
        print(x.grad, w.grad)
        print(outs[0].grad_fn._saved_self.requires_grad, outs[0].grad_fn._saved_self is x)""",
    "saved_tensors_hooks_errors": """
        x = torch.tensor([1., 2.], requires_grad=True)
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda p: 5):
            y = x.sin()
        try:
            y.sum().backward()
        except TypeError as e:
            print(e)
        def bad(t):
            t.add_(1)
            return t
        c = torch.ones(2, requires_grad=True) * 1
        with torch.autograd.graph.saved_tensors_hooks(bad, lambda p: p):
            c.sin()""",
    "saved_tensors_hooks_skip_version_checks_and_nest": """
        x = torch.tensor([1., 2.], requires_grad=True)
        c = x * 1
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda p: p):
            y = c.sin()
        c.add_(1)
        y.sum().backward(); print(x.grad)
        with torch.autograd.graph.saved_tensors_hooks(lambda t: print("outer") or t, lambda p: p):
            with torch.autograd.graph.saved_tensors_hooks(lambda t: print("inner") or t, lambda p: p):
                y = x.sin()
            y = x.cos()""",
    "raw_saved_register_hooks": """
        x = torch.tensor([1., 2.], requires_grad=True)
        z = x.pow(2)
        r = z.grad_fn._raw_saved_self
        print(type(r), r.unpack_hook)
        r.register_hooks(lambda t: print("pack", t) or t * 10, lambda p: print("unpack", p) or p / 10)
        print(z.grad_fn._saved_self, z.grad_fn._saved_self is x, r.unpack_hook is not None)
        try:
            r.register_hooks(lambda t: t, lambda t: t)
        except RuntimeError as e:
            print(e)
        z.sum().backward(); print(x.grad)
        try:
            r.register_hooks(lambda t: t, lambda t: t)
        except RuntimeError as e:
            print(e)
        y = x * torch.ones(2)
        y.grad_fn._raw_saved_other.register_hooks(lambda t: t, lambda t: t)
        y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)""",
    "raw_saved_register_hooks_needs_callables": """
        x = torch.tensor([1., 2.], requires_grad=True)
        x.sin().grad_fn._raw_saved_self.register_hooks(1, 2)""",
    "save_on_cpu_gives_the_same_gradients": """
        x = torch.tensor([1., 2.], requires_grad=True)
        for pin in (False, True):
            with torch.autograd.graph.save_on_cpu(pin_memory=pin):
                y = x.sin() * x
            y.sum().backward(); print(x.grad)
            print(y.grad_fn._saved_self, y.grad_fn._saved_other)""",
    "custom_function_saved_output_modified": """
        class Exp(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x.exp()
                ctx.save_for_backward(y)
                return y
            @staticmethod
            def backward(ctx, g):
                (y,) = ctx.saved_tensors
                return g * y
        x = torch.ones(3, requires_grad=True)
        y = Exp.apply(x)
        print(y.grad_fn.saved_tensors[0] is y, y.grad_fn.saved_tensors[0])
        y.add_(1)
        y.sum().backward()""",
    # ----- inference tensors, views of views, legacy loss arguments, in-place trig ---------------
    "inference_tensors": """
        x = torch.ones(2, requires_grad=True)
        with torch.inference_mode():
            y = x * 2
            z = torch.ones(2)
            print(y.is_inference(), z.is_inference(), y.requires_grad, torch.is_grad_enabled())
            print(torch.is_inference_mode_enabled(), y.view(2).is_inference(), x.view(2).is_inference())
            y.add_(1); print(y)
        print(x.is_inference(), y.is_inference(), torch.is_inference(y), torch.is_inference_mode_enabled())
        print(y.clone().is_inference(), y.detach().is_inference(), y.view(2).is_inference())
        print((x + y).grad_fn.name(), y.numpy(), y.grad)
        with torch.inference_mode(False):
            print((torch.ones(1) * 2).is_inference(), torch.is_grad_enabled())
        @torch.inference_mode()
        def f(a):
            return a * 2
        print(f(x).is_inference(), f(x).requires_grad)
        for step in ("y._version", "x * y", "y.add_(1)", "y[0] = 5.", "y.requires_grad_()",
                     "y.sum().backward()", "torch.nn.functional.mse_loss(x * 1, y)", "y.zero_()"):
            try:
                exec(step)
            except RuntimeError as e:
                print(step, "->", e)""",
    "inference_tensors_in_a_model": """
        lin = torch.nn.Linear(2, 1)
        with torch.inference_mode():
            out = lin(torch.ones(1, 2))
        print(out.is_inference(), out.requires_grad, lin.weight.is_inference())
        torch.nn.Linear(1, 1)(out).sum().backward()""",
    "inplace_on_a_view_of_a_view": """
        x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
        w = torch.tensor([[1., 2., 3.], [4., 5., 6.]])
        y = x * 1
        v = y[0][1:]
        v.mul_(2)
        print(y, v, y.grad_fn.name(), v.grad_fn.name(), v._version, y._version)
        print(y.grad_fn.next_functions, v.grad_fn._saved_size, v.grad_fn._saved_stride, v.grad_fn._saved_storage_offset)
        (y * w).sum().backward(); print(x.grad)
        x.grad = None
        y = x * 1
        v = y.T[1:]
        v.add_(x[0, :2].unsqueeze(0).T * 1)
        print(y, v.grad_fn.name(), v.grad_fn._saved_stride, v.grad_fn._saved_storage_offset)
        y.sum().backward(); print(x.grad)
        x.grad = None
        y = x * 1
        y.view(6)[::2].exp_()
        print(y)
        y.pow(2).sum().backward(); print(x.grad)
        y = x * 1
        y[0][1] = 7.
        y[:, 1:][1].zero_(); print(y)
        y.sum().backward()
        y = x * 1
        y.expand(2, 2, 3).mul_(2)""",
    "inplace_on_an_expanded_view": "torch.ones(3).expand(2, 3).mul_(2)",
    "legacy_loss_arguments": """
        nn = torch.nn
        x = torch.tensor([[0.2, 0.8], [0.6, 0.4]], requires_grad=True)
        t = torch.tensor([1, 0])
        for loss in (nn.MSELoss(size_average=False), nn.MSELoss(reduce=False), nn.MSELoss(True, True),
                     nn.L1Loss(size_average=False), nn.NLLLoss(reduce=False), nn.CrossEntropyLoss(size_average=False),
                     nn.BCELoss(size_average=False), nn.BCEWithLogitsLoss(reduce=False), nn.MSELoss(None, None, "sum")):
            print(loss, loss.reduction)
        F = nn.functional
        print(F.mse_loss(x, x * 0, size_average=False), F.l1_loss(x, x * 0, reduce=False))
        print(F.nll_loss(x, t, None, False), F.cross_entropy(x, t, reduce=False))
        print(F.binary_cross_entropy(x, x * 0, size_average=False), F.binary_cross_entropy_with_logits(x, x * 0, reduce=False))
        print(F.nll_loss(torch.ones(2, 3, 2, requires_grad=True), torch.tensor([[0, 1], [2, 0]]), reduction="none"))
        print(F.nll_loss(torch.ones(2, 3, 2, requires_grad=True), torch.tensor([[0, 1], [2, 0]])).grad_fn.next_functions)""",
    "inplace_trigonometry": """
        x = torch.tensor([[0., 1., 2.], [3., 4., 5.]], dtype=torch.float64, requires_grad=True)
        for name in ("sin_", "cos_", "tan_", "tanh_", "exp_", "log_", "sqrt_", "abs_", "neg_",
                     "sigmoid_", "relu_", "reciprocal_", "square_"):
            y = x * 1
            getattr(y, name)()
            print(name, y, y.grad_fn.next_functions)
            y.sum().backward()
            print(x.grad); x.grad = None
        for name in ("sin_", "cos_", "tan_", "tanh_", "exp_", "log_", "sqrt_", "abs_", "neg_", "sigmoid_", "relu_"):
            y = x * 1
            print(name, getattr(torch, name)(y) is y, y.grad_fn.name())
        print(torch.tan(x), x.tan().grad_fn._saved_result)
        x.sin_()""",
    # ----- %, //, flip -------------------------------------------------------------------
    "remainder_and_floor_divide": """
        x = torch.tensor([-3.5, 2., 5.], requires_grad=True)
        w = torch.tensor([2., -3., 1.5], requires_grad=True)
        for out in (x % 2, x % w, 2 % x, x // 2, x // w, 7 // x, torch.remainder(x, 2),
                    torch.remainder(2, x), x.remainder(w), x.floor_divide(w), torch.floor_divide(x, 2)):
            print(out, out.grad_fn.name(), [(f is None, i) for f, i in out.grad_fn.next_functions])
        (x % w).sum().backward(); print(x.grad, w.grad)
        x.grad = w.grad = None
        (x % 2).sum().backward(); print(x.grad)
        print((x % w).grad_fn._saved_self is x, (x % w).grad_fn._saved_other)
        print(torch.tensor([5, -7]) % 3, torch.tensor([5, -7]) // 3, torch.tensor([5., -7.]) // 0)
        print(torch.tensor([5.5, -7.]) % 0, torch.tensor([-0.5]) % 2, 2.5 % torch.tensor([2]))
        print(torch.tensor([5]) // 2.5, torch.tensor([-7.0, 7.0, -0.0]) % 3, torch.tensor([-7.0, 7.0]) // -3)
        print(torch.tensor([0.1, 0.7, 1.3]) % 0.1, torch.tensor([0.3, 0.7]) // 0.1, torch.tensor([True]) % 2)
        y = x.detach().clone(); y %= 2; print(y); y //= 0.3; print(y)
        z = x * 1; z %= 2; print(z.grad_fn.name())
        with torch.no_grad():
            print((x // 2).grad_fn)
        for step in ("torch.tensor([5, -7]) // 0", "torch.tensor([5, -7]) % torch.tensor([0, 2])",
                     "torch.tensor([True]) // torch.tensor([True])", "(x // 2).sum().backward()"):
            try:
                exec(step)
            except RuntimeError as e:
                print(step, "->", e)
        (2 % x).sum().backward()""",
    "flip": """
        m = torch.arange(6.).reshape(2, 3).requires_grad_()
        y = m.flip(0, 1); print(y, y.grad_fn._saved_dims, y.is_contiguous())
        print(m.flip(-1).grad_fn._saved_dims, torch.flip(m, [0]), m.flip([0, 1]).grad_fn.name())
        (m.flip(1) * torch.tensor([[1., 2., 3.], [4., 5., 6.]])).sum().backward(); print(m.grad)
        v = torch.tensor([1., 2., 3.]); f = v.flip(0); f[0] = 9.; print(v, f)
        try:
            m.flip(0, -2)
        except RuntimeError as e:
            print(e)
        m.flip(2)""",
    # ----- devices, legacy constructors, generators, gradcheck's fast mode ---------------------
    "devices_cuda_is_refused_everywhere": """
        print(torch.device("cuda"), torch.device("cuda:1"), repr(torch.device("cpu", 0)), str(torch.device("cuda:0")))
        print(torch.device("cpu") == torch.device("cpu"), torch.ones(2).device == torch.device("cpu"))
        print(torch.device("cpu") == "cpu", torch.device("cpu") == "gpu", torch.device("cpu") == 1)
        print(torch.ones(2, device="cpu:0").device, torch.ones(2).to(torch.device("cpu")), torch.device("cuda").type)
        print(torch.ones(2).is_cuda, torch.cuda.is_available(), torch.ones(2).to("cpu", torch.float64))
        for step in ("torch.ones(2, device='cuda')", "torch.zeros(2, device='cuda:0')", "torch.tensor([1.], device='cuda')",
                     "torch.ones(2).to('cuda')", "torch.ones(2).cuda()", "torch.ones(2).to(torch.device('cuda'))",
                     "torch.randn(2, device='cuda')", "torch.rand(2, device='cuda')", "torch.arange(3, device='cuda')",
                     "torch.linspace(0, 1, 3, device='cuda')", "torch.eye(2, device='cuda')", "torch.full((2,), 1., device='cuda')",
                     "torch.empty(2, device='cuda')", "torch.zeros_like(torch.ones(2), device='cuda')",
                     "torch.ones_like(torch.ones(2), device='cuda')", "torch.randn_like(torch.ones(2), device='cuda')",
                     "torch.randint(0, 3, (2,), device='cuda')", "torch.randperm(3, device='cuda')",
                     "torch.as_tensor([1.], device='cuda')", "torch.as_tensor(torch.ones(1), device='cuda')",
                     "torch.nn.Linear(2, 1, device='cuda')", "torch.nn.Linear(2, 1).to('cuda')", "torch.nn.Linear(2, 1).cuda()",
                     "torch.ones(2).to(device='cuda')", "torch.ones(2).to('cuda', torch.float64)",
                     "torch.normal(0., 1., (2,), device='cuda')", "torch.ones(2).to('xpu')"):
            try:
                eval(step)
            except AssertionError as e:
                print(step, "AssertionError", e)
        for step in ("torch.device('gpu')", "torch.ones(2, device='gpu')", "torch.ones(2, device=0)", "torch.device(0)",
                     "torch.ones(2).cuda(0)", "torch.ones(2).to('foo')"):
            try:
                eval(step)
            except RuntimeError as e:
                print(step, "RuntimeError", e)""",
    "legacy_constructor_dtype_names": """
        for make, data in ((torch.HalfTensor, torch.ones(1)), (torch.ShortTensor, torch.ones(1, dtype=torch.long)),
                           (torch.CharTensor, torch.ones(1, dtype=torch.long)), (torch.FloatTensor, torch.ones(1).half()),
                           (torch.ByteTensor, torch.ones(1)), (torch.FloatTensor, torch.ones(1, dtype=torch.uint8)),
                           (torch.FloatTensor, torch.ones(1, dtype=torch.bool))):
            try:
                make(data)
            except TypeError as e:
                print(e)""",
    "legacy_constructors": """
        import numpy as np
        for step in ("torch.FloatTensor([1, 2])", "torch.FloatTensor(2, 3).shape", "torch.FloatTensor()",
                     "torch.DoubleTensor([1, 2])", "torch.LongTensor([1.7, 2])", "torch.IntTensor([1, 2])",
                     "torch.BoolTensor([1, 0])", "torch.ByteTensor([1, 2])", "torch.Tensor([1, 2])",
                     "torch.Tensor(2, 3).shape", "torch.Tensor()", "torch.Tensor(3).dtype", "torch.Tensor([[1, 2], [3, 4]])",
                     "torch.Tensor(torch.Size([2, 2])).shape", "torch.FloatTensor([1, 2]).requires_grad_()",
                     "torch.Tensor(torch.tensor([1, 2]))", "torch.FloatTensor(torch.tensor([1., 2.]))",
                     "type(torch.FloatTensor([1]))", "isinstance(torch.ones(1), torch.FloatTensor)",
                     "isinstance(torch.ones(1, dtype=torch.float64), torch.FloatTensor)", "torch.ones(1).type()",
                     "torch.ones(1, dtype=torch.long).type()", "torch.ones(1).type(torch.DoubleTensor)",
                     "torch.ones(1).type('torch.DoubleTensor')", "torch.FloatTensor", "torch.FloatTensor(np.array([1, 2]))",
                     "torch.Tensor((1, 2))", "torch.Tensor(2, 3).is_leaf", "torch.FloatTensor(2).dtype",
                     "torch.tensor([1.]).type(torch.LongTensor)", "torch.Tensor([]).shape", "torch.Tensor([[]]).shape",
                     "torch.LongTensor([True])", "torch.Tensor(0).shape", "torch.Tensor([1, 2], device='cpu')",
                     "issubclass(torch.FloatTensor, torch.Tensor)", "torch.FloatTensor.dtype", "torch.LongTensor.dtype",
                     "isinstance(torch.ones(1), torch.Tensor)", "torch.Tensor(torch.ones(2)).data_ptr() == 0"):
            try:
                print(step, repr(eval(step)) if "data_ptr" not in step else "")
            except (TypeError, RuntimeError) as e:
                print(step, type(e).__name__, e)
        for step in ("torch.Tensor(2.5)", "torch.Tensor([1, 2], requires_grad=True)", "torch.FloatTensor(torch.tensor([1, 2]))",
                     "torch.Tensor('a')", "torch.FloatTensor([1], dtype=torch.float64)", "torch.FloatTensor(2, 'a')",
                     "torch.Tensor([1, 2], device='cuda')"):
            try:
                eval(step)
            except (TypeError, RuntimeError) as e:
                print(step, type(e).__name__, e)""",
    "generators": """
        g = torch.Generator().manual_seed(3)
        print(type(g), g.initial_seed(), g.device, torch.manual_seed(5) is torch.default_generator)
        print(torch.initial_seed(), torch.Generator().manual_seed(7).initial_seed())
        a = torch.rand(3, generator=torch.Generator().manual_seed(0))
        b = torch.rand(3, generator=torch.Generator().manual_seed(0))
        torch.manual_seed(1); c = torch.rand(3); torch.manual_seed(1); torch.rand(3, generator=g); d = torch.rand(3)
        print(torch.equal(a, b), torch.equal(c, d), a.shape, a.dtype)
        for make in (lambda g: torch.randn(2, 2, generator=g), lambda g: torch.randint(0, 9, (4,), generator=g),
                     lambda g: torch.randperm(5, generator=g), lambda g: torch.normal(0., 1., (3,), generator=g),
                     lambda g: torch.ones(3).uniform_(0, 1, generator=g), lambda g: torch.ones(3).normal_(generator=g),
                     lambda g: torch.nn.init.uniform_(torch.empty(3), generator=g),
                     lambda g: torch.nn.init.xavier_normal_(torch.empty(2, 3), generator=g),
                     lambda g: torch.nn.init.kaiming_uniform_(torch.empty(2, 3), generator=g)):
            x, y = make(torch.Generator().manual_seed(4)), make(torch.Generator().manual_seed(4))
            print(torch.equal(x, y), x.shape, x.dtype)""",
    "gradcheck_fast_mode": """
        class Bad(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2
            @staticmethod
            def backward(ctx, g):
                return g * 3
        x = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)
        w = torch.tensor([[1., -2.], [0.5, 3.]], dtype=torch.float64, requires_grad=True)
        print(torch.autograd.gradcheck(lambda t: (t ** 3).sum(), (x,), fast_mode=True))
        print(torch.autograd.gradcheck(lambda t, m: (m @ t).sin(), (x, w), fast_mode=True))
        print(torch.autograd.gradcheck(Bad.apply, (x,), fast_mode=True, raise_exception=False))
        print(torch.autograd.gradgradcheck(lambda t: t ** 3, (x,), fast_mode=True))
        try:
            torch.autograd.gradcheck(Bad.apply, (x,), fast_mode=True)
        except RuntimeError as e:
            print(str(e).split("Numerical:")[1])""",
    # ----- a small CNN as the hook tutorials build it ------------------------------------------
    "cnn_layers_hooks_and_gradients": """
        nn, F = torch.nn, torch.nn.functional
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1 = nn.Conv2d(1, 3, 3, padding=1)
                self.pool = nn.MaxPool2d(2)
                self.conv2 = nn.Conv2d(3, 4, (2, 3), stride=(1, 2), bias=False)
                self.flatten = nn.Flatten()
                self.drop = nn.Dropout(0.25)
                self.fc = nn.Linear(4, 2)
            def forward(self, x):
                x = self.pool(F.relu(self.conv1(x)))
                x = F.max_pool2d(self.conv2(x), 2, 1)
                return self.fc(self.drop(self.flatten(x)))
        net = Net()
        print(net)
        with torch.no_grad():
            for i, p in enumerate(net.parameters()):
                p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape) * (0.5 + 0.1 * i))
        net.eval()
        x = (torch.arange(64.).reshape(1, 1, 8, 8) % 7 - 3) / 3
        x.requires_grad_()
        seen = []
        for name, m in net.named_children():
            m.register_forward_hook(lambda m, i, o, name=name: seen.append((name, tuple(o.shape), o.grad_fn.name())))
            m.register_full_backward_hook(lambda m, gi, go, name=name: seen.append((name, [None if g is None else tuple(g.shape) for g in gi])))
        out = net(x)
        print(out, seen)
        (out * torch.tensor([[1., -2.]])).sum().backward()
        print(seen[6:])
        print(x.grad)
        print(net.conv1.weight.grad, net.conv2.weight.grad.sum(), net.conv1.bias.grad)
        y = F.conv2d(x, net.conv1.weight, net.conv1.bias, padding=1)
        print(y.grad_fn.name(), [(f.name() if f else f, i) for f, i in y.grad_fn.next_functions])
        print([(n, getattr(y.grad_fn, n)) for n in dir(y.grad_fn) if n.startswith("_saved") and n not in ("_saved_input", "_saved_weight")])
        p, idx = F.max_pool2d(y, 2, return_indices=True)
        print(idx, p.grad_fn._saved_result1.equal(idx), p.grad_fn._saved_kernel_size, p.grad_fn._saved_stride)
        print(nn.MaxPool2d(3, 2, 1, ceil_mode=True)(y).shape, F.max_pool2d(y, 3, 2, 1, 1, True).shape)
        print(F.conv2d(x[0], net.conv1.weight).grad_fn.name(), F.max_pool2d(x[0], 2).grad_fn.name())
        print(F.conv2d(x, net.conv1.weight, padding="same").shape, F.conv2d(x, net.conv1.weight, padding="valid").grad_fn._saved_padding)
        print(nn.Conv2d(4, 8, 3, groups=2, dilation=2, padding=(1, 2)), nn.Conv2d(1, 6, 5), nn.MaxPool2d((2, 3), stride=1))
        for step in ("nn.Conv2d(3, 4, 3, groups=2)", "nn.Conv2d(4, 4, 3, padding='bad')", "nn.Conv2d(4, 4, 3, padding='same', stride=2)",
                     "F.conv2d(torch.ones(1, 2, 8, 8), net.conv1.weight)", "F.conv2d(torch.ones(1, 1, 2, 2), net.conv2.weight)",
                     "F.conv2d(torch.ones(8, 8), net.conv1.weight)", "F.max_pool2d(torch.ones(1, 1, 1, 1), 2)",
                     "F.max_pool2d(torch.ones(1, 1, 4, 4), 2, padding=2)", "F.conv2d(torch.ones(1, 1, 4, 4, dtype=torch.float64), net.conv1.weight)",
                     "F.conv2d(x, net.conv1.weight, torch.ones(2))", "F.max_pool2d(torch.ones(4, 4), 2)", "F.conv2d(x, net.conv1.weight, stride=0)"):
            try:
                eval(step)
            except (RuntimeError, ValueError) as e:
                print(step, type(e).__name__, e)""",
    "dropout_in_training": """
        x = torch.ones(2, 3, requires_grad=True)
        y = torch.nn.functional.dropout(x, 0.3)
        print(y.grad_fn.name(), [f is None for f, _ in y.grad_fn.next_functions], sorted(n for n in dir(y.grad_fn) if n.startswith("_saved")))
        print(torch.nn.functional.dropout(x, 0.3, training=False) is x, torch.nn.Dropout(0.)(x) is x)
        print(torch.nn.functional.dropout(x, 1.).sum(), torch.nn.Dropout(0.5))
        torch.nn.functional.dropout(x, 1.5)""",
    # ----- float32 last bits --------------------------------------------------------------------
    "float32_last_bits_of_linspace_pow_and_alpha": """
        for start, end, steps in ((-5, 5, 30), (0, 1, 1000), (-3.3, 2.1, 77), (10, -10, 9), (0.1, 0.2, 1), (-3.3, 7.9, 40)):
            print(torch.linspace(start, end, steps).tolist()[-5:], sum(torch.linspace(start, end, steps).double().tolist()))
        print(torch.linspace(-3.3, 7.9, 40, dtype=torch.int64).tolist(), torch.linspace(0, 1, 5, dtype=torch.float64).tolist())
        x = torch.linspace(-3, 3, 1000)
        for e in (2, 3, -1, -2, -0.5, 2.0, 3.0):
            y = (x.abs() + 0.01) ** e
            print(e, sum(y.double().tolist()), y.tolist()[::97])
        a, b = torch.linspace(-2, 7, 1000), torch.linspace(5, -3, 1000)
        for alpha in (0.1, -0.01, 3.7, 2):
            print(alpha, a.clone().add_(b, alpha=alpha).tolist()[::111], a.sub(b, alpha=alpha).tolist()[::111])
            print(sum(torch.add(a, b, alpha=alpha).double().tolist()), a.add(2.5, alpha=alpha).tolist()[::333])
        w = torch.tensor([1., 2.], requires_grad=True)
        z = w.add(torch.tensor([3., 4.], requires_grad=True), alpha=2)
        print(z, z.grad_fn.name(), z.grad_fn._saved_alpha, len(z.grad_fn.next_functions))
        torch.ones(2, dtype=torch.long).add(torch.ones(2, dtype=torch.long), alpha=0.5)""",
    "fork_rng_restores_the_global_state": """
        torch.manual_seed(3)
        with torch.random.fork_rng():
            torch.rand(5); torch.randn(2, 2)
        after = torch.rand(2)
        torch.manual_seed(3)
        print(torch.equal(after, torch.rand(2)))
        with torch.random.fork_rng(enabled=False):
            torch.rand(1)
        torch.manual_seed(3); torch.rand(1)
        print(torch.equal(torch.rand(2), after))""",
    # ----- the tensor layer's methods no other snippet or unit test runs -----------------------
    "argmax_argmin_keepdim": """
        m = torch.tensor([[1., 5., 3.], [7., 2., 6.]])
        for y in [m.argmax(), m.argmin(), m.argmax(keepdim=True), m.argmin(dim=None, keepdim=True),
                  m.argmax(1), m.argmin(0, keepdim=True), m.argmax(-1, keepdim=True)]:
            print(y, y.dtype)""",
    "max_min_of_two_tensors_and_clamp_min_max": """
        x = torch.tensor([1., -2., 3.], requires_grad=True)
        for y in [x.max(torch.zeros(3)), x.min(torch.zeros(3)), x.where(x > 0, -x)]:
            print(y)
        print(x.detach().clamp_min(0.5), x.detach().clamp_max(0.5))
        print(x.max(0), x.min(0))
        x.clamp()""",
    "comparisons_and_logic": """
        a, b = torch.tensor([1., 2., 3.]), torch.tensor([3., 2., 1.])
        print(a == b, a != b, a < b, a <= b, a > b, a >= b, a.ne(2), a.eq(b), 2 < a)
        print(~(a > 1), (a > 1) & (b > 1), (a > 1) | (b > 2), (a > 5).all(), (a > 2).any(), (a > 0).all())
        print(torch.tensor([1., float('nan')]).isnan(), a.allclose(b), a.equal(a.clone()))""",
    "conversions_to_other_dtypes": """
        x = torch.tensor([1.5, -2.5, 0.])
        for y in [x.half(), x.int(), x.bool(), x.long(), x.double(), x.type_as(torch.ones(1, dtype=torch.int32))]:
            print(y, y.dtype, y.grad_fn)
        print(x.element_size(), x.half().element_size(), x.type(), x.int().type(), x.type(torch.int64).dtype)
        print(x.requires_grad_().to(torch.ones(1, dtype=torch.float64)).grad_fn, x.half().grad_fn)
        print(x.is_floating_point(), x.int().is_floating_point())""",
    "len_iter_index_of_tensors": """
        m = torch.tensor([[1, 2], [3, 4]])
        print(len(m), [row for row in m], list(range(10))[torch.tensor(3)], [1, 2, 3][m[0, 0]])
        print(int(torch.tensor([2.7])), float(torch.tensor(1)))
        for bad in [lambda: len(torch.tensor(1.)), lambda: iter(torch.tensor(1.)), lambda: [1, 2][torch.tensor(1.)], lambda: float(torch.ones(2))]:
            try:
                bad()
            except Exception as error:
                print(type(error).__name__, error)""",
    "view_as_reshape_as_expand_as": """
        x = torch.arange(6.).requires_grad_()
        print(x.view_as(torch.ones(2, 3)), x.reshape_as(torch.ones(3, 2)), torch.ones(3, 1).expand_as(torch.ones(3, 4)))
        print(x.reshape(-1, 3), x.view(3, -1).shape, x.flatten(), torch.tensor(1.).flatten())""",
    "detach_in_place": """
        x = torch.ones(2, requires_grad=True)
        y = x * 2
        print(y.detach_() is y, y.requires_grad, y.grad_fn, y.is_leaf)
        z = (x * 2)[0]
        z.detach_()""",
    "inplace_result_type_cast_errors_name_the_dtypes": """
        for dt, other in [(torch.int32, 1.5), (torch.int16, 2.5), (torch.int8, 0.5), (torch.uint8, 0.5), (torch.bool, 2)]:
            try:
                torch.ones(2, dtype=dt).mul_(other)
            except RuntimeError as error:
                print(error)
        torch.ones(2, dtype=torch.int32).add_(torch.ones(2, dtype=torch.float64))""",
    "setitem_that_keeps_the_whole_tensor_writes_into_it": """
        for index in [slice(None), Ellipsis, (slice(0, None), slice(None)), (Ellipsis, slice(None)), (), 0, (slice(None), 1)]:
            for value in [torch.tensor(5., requires_grad=True), 7.]:
                y = torch.zeros(2, 3, requires_grad=True).clone()
                y[index] = value
                (y * torch.arange(6.).reshape(2, 3)).sum().backward()
                print(index, y.grad_fn.name(), y._version, y.tolist(), getattr(value, 'grad', None))""",
    "setitem_expands_a_smaller_value_as_copy_to_does": """
        def chain(node):
            names = []
            while node is not None:
                names.append(node.name().split('::')[-1])
                node = node.next_functions[-1][0] if node.next_functions else None
            return names
        t = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
        for index, value in [((slice(None), slice(None)), [5., 6.]), (slice(None), [[5., 6.]]), (0, [[5., 6.]]), (0, [5., 6.]), (0, 5.), (slice(0, 1), [5., 6.])]:
            v = torch.tensor(value, requires_grad=True)
            y = t * 1
            y[index] = v
            (y * torch.tensor([[1., 2.], [3., 4.]])).sum().backward()
            print(index, chain(y.grad_fn), v.grad)
        z = torch.ones(2, 2)
        for index, value in [(0, torch.ones(3)), (0, torch.ones(2, 2)), (slice(None), torch.ones(3, 2, 2))]:
            try:
                z[index] = value
            except RuntimeError as error:
                print(error)""",
    "a_cast_to_an_integer_or_bool_dtype_records_no_node": """
        x = torch.tensor([0.5, -1.5, 2.0], requires_grad=True)
        for y in [x.int(), x.long(), x.bool(), x.to(torch.int64), x.type(torch.int32), (x * 2).to(torch.int16), x.to(torch.float64)]:
            print(y, y.requires_grad, y.is_leaf, y.grad_fn is None)
        with torch.no_grad():
            print(x.int().requires_grad)""",
    "transposes_of_a_scalar_and_a_vector": """
        import warnings
        x = torch.tensor(2., requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            print(x.T, x.mT is x, torch.ones(3).T.shape, torch.ones(2, 3, 4).T.shape, torch.ones(2, 3, 4).mT.shape)
        print(sorted({str(w.message) for w in caught}))
        torch.ones(3).mT""",
    "classification_losses_check_the_target_as_pytorch_does": """
        F = torch.nn.functional
        cases = [((2, 3), torch.ones(2, 3, dtype=torch.long)), ((3,), torch.tensor(1, dtype=torch.int32)), ((2, 3, 4), torch.ones(2, 4, dtype=torch.int32)),
                 ((2, 3, 4), torch.ones(2, 4, 5).long()), ((2, 3), torch.tensor([0, 1], dtype=torch.uint8)), ((2, 3), torch.ones(2, 3, 1).long()),
                 ((2, 3), torch.tensor([0.5, 1.])), ((2, 3), torch.tensor([True, False])), ((2, 3, 4, 5), torch.ones(2, 4).long())]
        for shape, target in cases:
            for loss in (F.cross_entropy, F.nll_loss):
                try:
                    print(loss(torch.ones(shape, requires_grad=True), target))
                except (RuntimeError, ValueError) as error:
                    print(type(error).__name__, error)""",
    "clamp_min_and_clamp_max_record_their_own_nodes": """
        x = torch.tensor([0.5, -1.5, 2.0], requires_grad=True)
        for y in [x.clamp_min(0), x.clamp_max(1), torch.clamp_min(x, 0), x.clamp(min=0), x.clip(max=1), (x * 1).clamp_min_(0), (x * 1).clamp_max_(1)]:
            print(y, sorted(n for n in dir(y.grad_fn) if n.startswith('_saved')))
        x.clamp_min(0.25).sum().backward()
        print(x.grad, x.clamp_max(1).grad_fn._saved_max, x.clamp_min(0).grad_fn._saved_min)""",
    "permute_dot_and_index_tensors_refuse_as_pytorch_does": """
        x = torch.ones(3, 4, 5)
        for bad in ["torch.ones(3).permute(1, 0)", "torch.ones(2, 3).permute(0)", "torch.ones(2, 3).permute(0, 0)", "torch.ones(2, 3).permute(0, -2)",
                    "torch.ones(2, 2).dot(torch.ones(2, 2))", "torch.ones(2).dot(torch.ones(2, 2))", "torch.ones(3)[torch.tensor([5])]",
                    "x[1, torch.tensor([7])]", "x[:, :, torch.tensor([7])]", "x[torch.tensor([0]), :, torch.tensor([7])]", "x[..., torch.tensor([9])]",
                    "x[None, :, torch.tensor([9])]", "x[torch.tensor([[0, 9]])]", "x[[0, 5]]", "x[torch.tensor([1]), torch.tensor([1]), torch.tensor([-9])]"]:
            try:
                print(eval(bad).shape)
            except (RuntimeError, IndexError) as error:
                print(type(error).__name__, error)""",
    "views_made_before_an_in_place_op_on_their_base_see_it": """
        def chain(node):
            names = []
            while node is not None:
                names.append(node.name().split('::')[-1])
                node = node.next_functions[0][0] if node.next_functions else None
            return names
        a = torch.ones(2, 2, requires_grad=True)
        b = a.clone(); c = b[0]; b.mul_(2); c.sum().backward(); print(a.grad, chain(c.grad_fn))
        a.grad = None
        b = a.clone(); c1, c2, c3 = b[0], b[1], b.T; c1.mul_(3)
        (c2.sum() + c3.sum() + c1.sum()).backward(); print(a.grad, chain(c2.grad_fn), chain(c3.grad_fn))
        w = torch.tensor(2., requires_grad=True); b = torch.ones(2, 2); c = b[0]; b.mul_(w)
        print(c.requires_grad, chain(c.grad_fn)); c.sum().backward(); print(w.grad)
        a.grad = None
        b = a.clone(); d = b[0][1:]; b.add_(1); d.sum().backward(); print(a.grad, d._base is b)""",
    "dtype_errors_name_every_dtype_as_pytorch_does": """
        for dt in [torch.float16, torch.float64, torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8]:
            for bad in [lambda: torch.ones(3, dtype=dt).mean(), lambda: torch.ones(3, dtype=dt).norm(), lambda: torch.ones(2, 2, dtype=dt).mm(torch.ones(2, 2)),
                        lambda: torch.ones(2, dtype=dt).dot(torch.ones(2)), lambda: torch.ones(2, 3).mv(torch.ones(3, dtype=dt)),
                        lambda: torch.nn.functional.linear(torch.ones(2, 3), torch.ones(4, 3, dtype=dt)), lambda: torch.ones(2, dtype=dt).mul_(1.5)]:
                try:
                    print(bad().dtype)
                except RuntimeError as error:
                    print(error)""",
}
