// Command evaluate runs a MutatingAdmissionPolicy and its binding through Kubernetes' own
// MutatingAdmissionPolicy admission plugin (k8s.io/apiserver), without a cluster, and prints
// what it did to each pod of a table: whether the pod was changed, the NRI required-plugins
// annotations it ends with, and the plugins NRI resolves from them for each container.
//
//	evaluate RENDERED.yaml PODS.yaml
//
// RENDERED.yaml is what users apply (kustomize's output): its MutatingAdmissionPolicy,
// MutatingAdmissionPolicyBinding and Namespaces are loaded, strictly (an unknown field fails),
// the DaemonSets serve as pod templates. PODS.yaml is a list of cases:
//
//   - case: NAME
//     pod: {a v1 Pod; metadata.namespace names its namespace}
//     # or, instead of pod: the pod of a DaemonSet in RENDERED.yaml, in that DaemonSet's namespace
//     daemonSet: NAME
//     namespaceLabels: {extra labels of the pod's namespace, when it is not in RENDERED.yaml}
//     gpu: true|false, nri: [...]   # the GPU forms table's columns, not read here
//
// Output, one line per case, in the table's order:
//
//	CASE annotated|untouched|denied ANNOTATIONS RESOLVED
//
// ANNOTATIONS: the pod's required-plugins annotations after admission as KEY=VALUE (Go-quoted
// value), sorted, or "-"; RESOLVED: CONTAINER=LIST for every init container and container, the
// plugins NRI's default validator requires for it (NRI reads KEY/container.NAME, else KEY/pod,
// else KEY, as a YAML list), "[]" for none, "error" when the value is not a YAML list. "denied"
// is followed by the plugin's message. Exit status 0 when every case ran; 1 on a policy that
// does not compile, a case that cannot be read, or an evaluation error; 2 on usage.
//
// The plugin is wired as the API server wires it (mutating.NewPlugin: its policy source over
// informers, its dispatcher, its matcher with the namespace lister), on a fake clientset holding
// the policy, the binding and the namespaces. Two differences, both forced by having no server:
// the Pod schema for ApplyConfiguration comes from client-go's compiled apply configurations
// (the server serves its own through /openapi/v3), and the policy's compile function is reached
// by name (it is not exported). The API server's v1 defaults for the fields this needs are
// applied here (they live in k8s.io/kubernetes), and every expression is compiled once more as
// the API server does when the policy is created (environment.NewExpressions), so that an
// expression a real server would refuse fails here too.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
	_ "unsafe" // go:linkname

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
	"k8s.io/apiserver/pkg/admission/plugin/policy/matching"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/client-go/applyconfigurations"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/openapi"
	"sigs.k8s.io/yaml"
)

// The plugin's own compile function (k8s.io/apiserver/pkg/admission/plugin/policy/mutating),
// the one mutating.NewPlugin hands its policy source.
//
//go:linkname compilePolicy k8s.io/apiserver/pkg/admission/plugin/policy/mutating.compilePolicy
func compilePolicy(policy *admissionregistrationv1.MutatingAdmissionPolicy) mutating.PolicyEvaluator

// NRI's annotation (containerd/nri pkg/plugin, RequiredPluginsAnnotation).
const requiredPlugins = "required-plugins.noderesource.dev"

type podCase struct {
	Case            string            `json:"case"`
	Pod             *corev1.Pod       `json:"pod,omitempty"`
	DaemonSet       string            `json:"daemonSet,omitempty"`
	NamespaceLabels map[string]string `json:"namespaceLabels,omitempty"`
	// The GPU forms table's columns (pods.yaml says what they are), read by the shell checks and
	// tests/k8s/check-gpu-forms.sh, not here.
	GPU *bool         `json:"gpu,omitempty"`
	NRI []interface{} `json:"nri,omitempty"`
}

type rendered struct {
	policy     *admissionregistrationv1.MutatingAdmissionPolicy
	binding    *admissionregistrationv1.MutatingAdmissionPolicyBinding
	namespaces map[string]*corev1.Namespace
	daemonSets map[string]*appsv1.DaemonSet
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: evaluate RENDERED.yaml PODS.yaml")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "evaluate:", err)
		os.Exit(1)
	}
}

func run(renderedPath, podsPath string, out io.Writer) error {
	r, err := loadRendered(renderedPath)
	if err != nil {
		return err
	}
	if err := compileAsCreated(r.policy); err != nil {
		return err
	}
	raw, err := os.ReadFile(podsPath)
	if err != nil {
		return err
	}
	var cases []podCase
	if err := yaml.UnmarshalStrict(raw, &cases); err != nil {
		return fmt.Errorf("%s: %w", podsPath, err)
	}
	pods := make([]*corev1.Pod, len(cases))
	for i, c := range cases {
		if pods[i], err = podOf(c, r); err != nil {
			return fmt.Errorf("%s: case %q: %w", podsPath, c.Case, err)
		}
		if _, ok := r.namespaces[pods[i].Namespace]; !ok {
			r.namespaces[pods[i].Namespace] = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: pods[i].Namespace}}
		}
		for k, v := range c.NamespaceLabels {
			ns := r.namespaces[pods[i].Namespace]
			if ns.Labels == nil {
				ns.Labels = map[string]string{}
			}
			ns.Labels[k] = v
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	plugin, err := startPlugin(ctx, r)
	if err != nil {
		return err
	}
	failed := false
	for i, c := range cases {
		pod := pods[i]
		before := pod.DeepCopy()
		attrs := admission.NewAttributesRecord(pod, nil, corev1.SchemeGroupVersion.WithKind("Pod"), pod.Namespace,
			pod.Name, corev1.SchemeGroupVersion.WithResource("pods"), "", admission.Create, &metav1.CreateOptions{},
			false, &user.DefaultInfo{Name: "system:serviceaccount:default:deployer"})
		err := plugin.Admit(ctx, attrs, admission.NewObjectInterfacesFromScheme(scheme.Scheme))
		switch {
		case err != nil:
			var status interface{ Status() metav1.Status }
			if !errors.As(err, &status) {
				failed = true
			}
			fmt.Fprintf(out, "%s denied %s\n", c.Case, strings.ReplaceAll(err.Error(), "\n", " "))
		default:
			outcome := "untouched"
			if !equalPods(before, pod) {
				outcome = "annotated"
			}
			fmt.Fprintf(out, "%s %s %s %s\n", c.Case, outcome, annotationsOf(pod), resolved(pod))
		}
	}
	if failed {
		return errors.New("an evaluation failed (above)")
	}
	return nil
}

// loadRendered reads the kustomize output: one policy, one binding, the namespaces and DaemonSets;
// other kinds are skipped. Strict: an unknown field is an error, as the API server's is.
func loadRendered(path string) (*rendered, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := &rendered{namespaces: map[string]*corev1.Namespace{}, daemonSets: map[string]*appsv1.DaemonSet{}}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(f))
	for {
		doc, err := reader.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		var head metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &head); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		var into any
		switch head.Kind {
		case "MutatingAdmissionPolicy":
			if r.policy != nil {
				return nil, fmt.Errorf("%s: more than one MutatingAdmissionPolicy", path)
			}
			r.policy = &admissionregistrationv1.MutatingAdmissionPolicy{}
			into = r.policy
		case "MutatingAdmissionPolicyBinding":
			if r.binding != nil {
				return nil, fmt.Errorf("%s: more than one MutatingAdmissionPolicyBinding", path)
			}
			r.binding = &admissionregistrationv1.MutatingAdmissionPolicyBinding{}
			into = r.binding
		case "Namespace":
			ns := &corev1.Namespace{}
			into = ns
			defer func() { r.namespaces[ns.Name] = ns }()
		case "DaemonSet":
			ds := &appsv1.DaemonSet{}
			into = ds
			defer func() { r.daemonSets[ds.Name] = ds }()
		case "":
			continue
		default:
			continue
		}
		if err := yaml.UnmarshalStrict(doc, into); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, head.Kind, err)
		}
	}
	if r.policy == nil || r.binding == nil {
		return nil, fmt.Errorf("%s: needs one MutatingAdmissionPolicy and one MutatingAdmissionPolicyBinding", path)
	}
	if head := r.policy.APIVersion; head != admissionregistrationv1.SchemeGroupVersion.String() {
		return nil, fmt.Errorf("%s: the policy is %s, this evaluates %s", path, head, admissionregistrationv1.SchemeGroupVersion)
	}
	defaultPolicy(r.policy)
	defaultBinding(r.binding)
	return r, nil
}

// The API server's v1 defaults (k8s.io/kubernetes pkg/apis/admissionregistration/v1) for what the
// plugin reads: empty selectors match everything, matchPolicy Equivalent, rule scope "*",
// failurePolicy Fail, reinvocationPolicy Never.
func defaultMatch(m *admissionregistrationv1.MatchResources) {
	if m.NamespaceSelector == nil {
		m.NamespaceSelector = &metav1.LabelSelector{}
	}
	if m.ObjectSelector == nil {
		m.ObjectSelector = &metav1.LabelSelector{}
	}
	if m.MatchPolicy == nil {
		p := admissionregistrationv1.Equivalent
		m.MatchPolicy = &p
	}
	for _, rules := range [][]admissionregistrationv1.NamedRuleWithOperations{m.ResourceRules, m.ExcludeResourceRules} {
		for i := range rules {
			if rules[i].Scope == nil {
				s := admissionregistrationv1.AllScopes
				rules[i].Scope = &s
			}
		}
	}
}

func defaultPolicy(p *admissionregistrationv1.MutatingAdmissionPolicy) {
	if p.Spec.MatchConstraints == nil {
		p.Spec.MatchConstraints = &admissionregistrationv1.MatchResources{}
	}
	defaultMatch(p.Spec.MatchConstraints)
	if p.Spec.FailurePolicy == nil {
		f := admissionregistrationv1.Fail
		p.Spec.FailurePolicy = &f
	}
	if p.Spec.ReinvocationPolicy == "" {
		p.Spec.ReinvocationPolicy = admissionregistrationv1.NeverReinvocationPolicy
	}
}

func defaultBinding(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
	if b.Spec.MatchResources != nil {
		defaultMatch(b.Spec.MatchResources)
	}
}

// compileAsCreated compiles every expression as the API server does when the policy is created
// or updated (environment.NewExpressions, at the default compatibility version): a function
// newer than that version, a type error or a misspelled field fails here, with CEL's message.
func compileAsCreated(p *admissionregistrationv1.MutatingAdmissionPolicy) error {
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		return err
	}
	opts := plugincel.OptionalVariableDeclarations{HasParams: p.Spec.ParamKind != nil, HasAuthorizer: true}
	var errs []string
	for _, v := range p.Spec.Variables {
		res := compiler.CompileAndStoreVariable(&mutating.Variable{Name: v.Name, Expression: v.Expression}, opts, environment.NewExpressions)
		if res.Error != nil {
			errs = append(errs, fmt.Sprintf("variables %s: %v", v.Name, res.Error))
		}
	}
	for i := range p.Spec.MatchConditions {
		mc := p.Spec.MatchConditions[i]
		res := compiler.CompileCELExpression((*matchconditions.MatchCondition)(&mc), opts, environment.NewExpressions)
		if res.Error != nil {
			errs = append(errs, fmt.Sprintf("matchConditions %s: %v", mc.Name, res.Error))
		}
	}
	patchOpts := opts
	patchOpts.HasPatchTypes = true
	for i, m := range p.Spec.Mutations {
		var accessor plugincel.ExpressionAccessor
		switch {
		case m.PatchType == admissionregistrationv1.PatchTypeApplyConfiguration && m.ApplyConfiguration != nil:
			accessor = &patch.ApplyConfigurationCondition{Expression: m.ApplyConfiguration.Expression}
		case m.PatchType == admissionregistrationv1.PatchTypeJSONPatch && m.JSONPatch != nil:
			accessor = &patch.JSONPatchCondition{Expression: m.JSONPatch.Expression}
		default:
			errs = append(errs, fmt.Sprintf("mutations[%d]: patchType %q without its expression", i, m.PatchType))
			continue
		}
		if res := compiler.CompileCELExpression(accessor, patchOpts, environment.NewExpressions); res.Error != nil {
			errs = append(errs, fmt.Sprintf("mutations[%d]: %v", i, res.Error))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("the policy does not compile: %s", strings.Join(errs, "; "))
	}
	return nil
}

func podOf(c podCase, r *rendered) (*corev1.Pod, error) {
	switch {
	case c.Case == "" || strings.ContainsAny(c.Case, " \t\n"):
		return nil, errors.New("needs a case name without blanks")
	case (c.Pod == nil) == (c.DaemonSet == ""):
		return nil, errors.New("needs exactly one of pod and daemonSet")
	case c.Pod != nil:
		if c.Pod.Namespace == "" {
			return nil, errors.New("pod needs metadata.namespace")
		}
		return c.Pod.DeepCopy(), nil
	}
	ds, ok := r.daemonSets[c.DaemonSet]
	if !ok {
		return nil, fmt.Errorf("no DaemonSet %q in the rendered file", c.DaemonSet)
	}
	// What the DaemonSet controller creates: the template's metadata and spec, in its namespace.
	pod := &corev1.Pod{ObjectMeta: *ds.Spec.Template.ObjectMeta.DeepCopy(), Spec: *ds.Spec.Template.Spec.DeepCopy()}
	pod.Namespace = ds.Namespace
	pod.GenerateName = ds.Name + "-"
	return pod, nil
}

// startPlugin builds the plugin as mutating.NewPlugin does, initializes it as the API server's
// admission initializer does, and waits until its policy source has compiled the policy.
func startPlugin(ctx context.Context, r *rendered) (*mutating.Plugin, error) {
	objects := []runtime.Object{r.policy, r.binding}
	for _, ns := range r.namespaces {
		// The API server labels every namespace with its name.
		if ns.Labels == nil {
			ns.Labels = map[string]string{}
		}
		ns.Labels[corev1.LabelMetadataName] = ns.Name
		objects = append(objects, ns)
	}
	client := fake.NewSimpleClientset(objects...)
	dynamicClient := dynamicfake.NewSimpleDynamicClient(scheme.Scheme)
	factory := informers.NewSharedInformerFactory(client, 0)
	restMapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{corev1.SchemeGroupVersion})
	restMapper.Add(corev1.SchemeGroupVersion.WithKind("Pod"), meta.RESTScopeNamespace)
	restMapper.Add(corev1.SchemeGroupVersion.WithKind("Namespace"), meta.RESTScopeRoot)

	typeConverter := applyconfigurations.NewTypeConverter(scheme.Scheme)
	plugin := &mutating.Plugin{Plugin: generic.NewPlugin(
		admission.NewHandler(admission.Create, admission.Update, admission.Connect),
		func(f informers.SharedInformerFactory, client kubernetes.Interface, dynamicClient dynamic.Interface, restMapper meta.RESTMapper) generic.Source[mutating.PolicyHook] {
			return generic.NewPolicySource(
				f.Admissionregistration().V1().MutatingAdmissionPolicies().Informer(),
				f.Admissionregistration().V1().MutatingAdmissionPolicyBindings().Informer(),
				mutating.NewMutatingAdmissionPolicyAccessor,
				mutating.NewMutatingAdmissionPolicyBindingAccessor,
				compilePolicy,
				f,
				dynamicClient,
				restMapper,
			)
		},
		func(a authorizer.Authorizer, m *matching.Matcher, client kubernetes.Interface) generic.Dispatcher[mutating.PolicyHook] {
			return mutating.NewDispatcher(a, m, patch.NewTypeConverterManager(typeConverter, noOpenAPI{}))
		},
	)}
	plugin.SetEnabled(true)
	plugin.SetExternalKubeInformerFactory(factory)
	plugin.SetExternalKubeClientSet(client)
	plugin.SetDynamicClient(dynamicClient)
	plugin.SetRESTMapper(restMapper)
	plugin.SetAuthorizer(allowAll{})
	plugin.SetDrainedNotification(ctx.Done())
	if err := plugin.ValidateInitialization(); err != nil {
		return nil, err
	}
	factory.Start(ctx.Done())
	// The plugin's own readiness: the namespace informer synced and the policy compiled.
	deadline := time.Now().Add(60 * time.Second)
	for !plugin.WaitForReady() {
		if time.Now().After(deadline) {
			return nil, errors.New("the admission plugin did not get ready (policy source not synced)")
		}
	}
	return plugin, nil
}

// noOpenAPI: the Pod schema comes from the static type converter; no server to ask for others.
type noOpenAPI struct{}

func (noOpenAPI) Paths() (map[string]openapi.GroupVersion, error) {
	return map[string]openapi.GroupVersion{}, nil
}

type allowAll struct{}

func (allowAll) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.DecisionAllow, "", nil
}

func equalPods(a, b *corev1.Pod) bool {
	x, _ := yaml.Marshal(a)
	y, _ := yaml.Marshal(b)
	return bytes.Equal(x, y)
}

func annotationsOf(pod *corev1.Pod) string {
	var keys []string
	for k := range pod.Annotations {
		if k == requiredPlugins || strings.HasPrefix(k, requiredPlugins+"/") {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return "-"
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%q", k, pod.Annotations[k])
	}
	return strings.Join(parts, " ")
}

// resolved: what NRI's default validator requires for each container, read as NRI reads it.
func resolved(pod *corev1.Pod) string {
	var parts []string
	for _, c := range append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
		value, ok := pod.Annotations[requiredPlugins+"/container."+c.Name]
		if !ok {
			value, ok = pod.Annotations[requiredPlugins+"/pod"]
		}
		if !ok {
			value, ok = pod.Annotations[requiredPlugins]
		}
		list := "[]"
		if ok {
			var names []string
			if err := yaml.Unmarshal([]byte(value), &names); err != nil {
				list = "error"
			} else {
				list = "[" + strings.Join(names, ",") + "]"
			}
		}
		parts = append(parts, c.Name+"="+list)
	}
	return strings.Join(parts, " ")
}
