// Wrapper module: builds the calico-node (Felix, confd, allocate-tunnel-addrs, the probes), CNI plugin and calicoctl
// of Calico v3.29 from github.com/projectcalico/calico at b559a703e1c0, for labs with LAB_CALICO=v3.29.0
// (test/lab/lib.sh; issue 36 step 4). No v3.29 release tag's commit is served by the Go module proxy (v3.29.0 to
// v3.29.7 answer 403, test/bench/FIGURES.md); b559a703e1c0 is on release-v3.29, five commits past the v3.29.0 tag,
// and its manifests carry image tags v3.29.0. The proxy serves it only by this pseudo-version
// (v0.0.0-20241104220808-b559a703e1c0; Go's own form v1.11.0-cni-plugin.0.20241104220808-b559a703e1c0 answers 403).
// The replace lines repeat Calico's own at that commit: the k8s.io staging modules at v0.29.9, k8s.io/kubernetes
// v1.29.9 and knftables' untagged commit; its nested api module (a local ./api there) is projectcalico/api at
// edb6f699d767, "Automatic API update from projectcalico/calico v3.29" of the v3.29.0 release, which lacks only the
// FelixConfiguration field wireguardThreadingEnabled that b559a703e1c0 adds (Felix reads its own config parameter;
// the field's absence only means a FelixConfiguration cannot set it). One wrapper for the three binaries.
module calico-encap.local/lab/calico-node-v3.29

go 1.22.3

require github.com/projectcalico/calico v0.0.0-20241104220808-b559a703e1c0

require (
	github.com/BurntSushi/toml v1.3.2 // indirect
	github.com/Microsoft/go-winio v0.6.2 // indirect
	github.com/Microsoft/hcsshim v0.11.6 // indirect
	github.com/StackExchange/wmi v0.0.0-20181212234831-e0a55b97c705 // indirect
	github.com/alexflint/go-filemutex v1.1.0 // indirect
	github.com/aws/aws-sdk-go-v2 v1.25.0 // indirect
	github.com/aws/aws-sdk-go-v2/config v1.27.0 // indirect
	github.com/aws/aws-sdk-go-v2/credentials v1.17.0 // indirect
	github.com/aws/aws-sdk-go-v2/feature/ec2/imds v1.15.0 // indirect
	github.com/aws/aws-sdk-go-v2/internal/configsources v1.3.0 // indirect
	github.com/aws/aws-sdk-go-v2/internal/endpoints/v2 v2.6.0 // indirect
	github.com/aws/aws-sdk-go-v2/internal/ini v1.8.0 // indirect
	github.com/aws/aws-sdk-go-v2/service/ec2 v1.148.0 // indirect
	github.com/aws/aws-sdk-go-v2/service/internal/accept-encoding v1.11.0 // indirect
	github.com/aws/aws-sdk-go-v2/service/internal/presigned-url v1.11.0 // indirect
	github.com/aws/aws-sdk-go-v2/service/sso v1.19.0 // indirect
	github.com/aws/aws-sdk-go-v2/service/ssooidc v1.22.0 // indirect
	github.com/aws/aws-sdk-go-v2/service/sts v1.27.0 // indirect
	github.com/aws/smithy-go v1.20.0 // indirect
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/bits-and-blooms/bitset v1.13.0 // indirect
	github.com/blang/semver/v4 v4.0.0 // indirect
	github.com/buger/jsonparser v1.1.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/containerd/cgroups v1.1.0 // indirect
	github.com/containerd/containerd v1.6.26 // indirect
	github.com/containernetworking/cni v1.2.0 // indirect
	github.com/containernetworking/plugins v1.1.1 // indirect
	github.com/coreos/go-iptables v0.6.0 // indirect
	github.com/coreos/go-semver v0.3.1 // indirect
	github.com/coreos/go-systemd/v22 v22.5.0 // indirect
	github.com/davecgh/go-spew v1.1.2-0.20180830191138-d8f796af33cc // indirect
	github.com/docopt/docopt-go v0.0.0-20180111231733-ee0de3bc6815 // indirect
	github.com/emicklei/go-restful/v3 v3.11.0 // indirect
	github.com/fsnotify/fsnotify v1.7.0 // indirect
	github.com/go-ini/ini v1.67.0 // indirect
	github.com/go-logr/logr v1.4.2 // indirect
	github.com/go-ole/go-ole v1.2.4 // indirect
	github.com/go-openapi/jsonpointer v0.19.6 // indirect
	github.com/go-openapi/jsonreference v0.20.2 // indirect
	github.com/go-openapi/swag v0.22.3 // indirect
	github.com/go-playground/locales v0.12.1 // indirect
	github.com/go-playground/universal-translator v0.0.0-20170327191703-71201497bace // indirect
	github.com/gofrs/flock v0.8.1 // indirect
	github.com/gogo/protobuf v1.3.2 // indirect
	github.com/golang-collections/collections v0.0.0-20130729185459-604e922904d3 // indirect
	github.com/golang/groupcache v0.0.0-20210331224755-41bb18bfe9da // indirect
	github.com/golang/protobuf v1.5.4 // indirect
	github.com/golang/snappy v0.0.4 // indirect
	github.com/google/btree v1.1.2 // indirect
	github.com/google/gnostic-models v0.6.8 // indirect
	github.com/google/go-cmp v0.6.0 // indirect
	github.com/google/gofuzz v1.2.0 // indirect
	github.com/google/gopacket v1.1.19 // indirect
	github.com/google/safetext v0.0.0-20230106111101-7156a760e523 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/hashicorp/hcl v1.0.0 // indirect
	github.com/imdario/mergo v0.3.12 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/jmespath/go-jmespath v0.4.0 // indirect
	github.com/josharian/intern v1.0.0 // indirect
	github.com/json-iterator/go v1.1.12 // indirect
	github.com/juju/clock v1.0.3 // indirect
	github.com/juju/errors v1.0.0 // indirect
	github.com/juju/mutex v0.0.0-20180619145857-d21b13acf4bf // indirect
	github.com/kardianos/osext v0.0.0-20190222173326-2bc1f35cddc0 // indirect
	github.com/kelseyhightower/envconfig v1.4.0 // indirect
	github.com/kelseyhightower/memkv v0.1.1 // indirect
	github.com/leodido/go-urn v0.0.0-20181204092800-a67a23e1c1af // indirect
	github.com/lithammer/dedent v1.1.0 // indirect
	github.com/magiconair/properties v1.8.7 // indirect
	github.com/mailru/easyjson v0.7.7 // indirect
	github.com/mattn/go-runewidth v0.0.9 // indirect
	github.com/mcuadros/go-version v0.0.0-20190830083331-035f6764e8d2 // indirect
	github.com/mdlayher/genetlink v1.0.0 // indirect
	github.com/mdlayher/netlink v1.1.0 // indirect
	github.com/mipearson/rfw v0.0.0-20170619235010-6f0a6f3266ba // indirect
	github.com/mitchellh/go-homedir v1.1.0 // indirect
	github.com/mitchellh/mapstructure v1.5.0 // indirect
	github.com/modern-go/concurrent v0.0.0-20180306012644-bacd9c7ef1dd // indirect
	github.com/modern-go/reflect2 v1.0.2 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/natefinch/atomic v1.0.1 // indirect
	github.com/olekukonko/tablewriter v0.0.5 // indirect
	github.com/onsi/gomega v1.32.0 // indirect
	github.com/pelletier/go-toml/v2 v2.1.0 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	github.com/projectcalico/api v0.0.0-00010101000000-000000000000 // indirect
	github.com/projectcalico/go-json v0.0.0-20161128004156-6219dc7339ba // indirect
	github.com/projectcalico/go-yaml-wrapper v0.0.0-20191112210931-090425220c54 // indirect
	github.com/prometheus/client_golang v1.18.0 // indirect
	github.com/prometheus/client_model v0.6.0 // indirect
	github.com/prometheus/common v0.47.0 // indirect
	github.com/prometheus/procfs v0.12.0 // indirect
	github.com/safchain/ethtool v0.0.0-20210803160452-9aa261dae9b1 // indirect
	github.com/sagikazarmark/locafero v0.4.0 // indirect
	github.com/sagikazarmark/slog-shim v0.1.0 // indirect
	github.com/shirou/gopsutil v0.0.0-20190323131628-2cbc9195c892 // indirect
	github.com/shirou/w32 v0.0.0-20160930032740-bb4de0191aa4 // indirect
	github.com/sirupsen/logrus v1.9.3 // indirect
	github.com/sourcegraph/conc v0.3.0 // indirect
	github.com/spf13/afero v1.11.0 // indirect
	github.com/spf13/cast v1.6.0 // indirect
	github.com/spf13/cobra v1.8.0 // indirect
	github.com/spf13/pflag v1.0.5 // indirect
	github.com/spf13/viper v1.18.2 // indirect
	github.com/subosito/gotenv v1.6.0 // indirect
	github.com/termie/go-shutil v0.0.0-20140729215957-bcacb06fecae // indirect
	github.com/vishvananda/netlink v1.2.1-beta.2.0.20240703200800-b54f85093f4a // indirect
	github.com/vishvananda/netns v0.0.4 // indirect
	go.etcd.io/etcd/api/v3 v3.5.12 // indirect
	go.etcd.io/etcd/client/pkg/v3 v3.5.12 // indirect
	go.etcd.io/etcd/client/v3 v3.5.12 // indirect
	go.opencensus.io v0.24.0 // indirect
	go.uber.org/multierr v1.11.0 // indirect
	go.uber.org/zap v1.26.0 // indirect
	golang.org/x/crypto v0.24.0 // indirect
	golang.org/x/exp v0.0.0-20230905200255-921286631fa9 // indirect
	golang.org/x/net v0.26.0 // indirect
	golang.org/x/oauth2 v0.20.0 // indirect
	golang.org/x/sync v0.7.0 // indirect
	golang.org/x/sys v0.21.0 // indirect
	golang.org/x/term v0.21.0 // indirect
	golang.org/x/text v0.16.0 // indirect
	golang.org/x/time v0.5.0 // indirect
	golang.zx2c4.com/wireguard v0.0.20200121 // indirect
	golang.zx2c4.com/wireguard/wgctrl v0.0.0-20200324154536-ceff61240acf // indirect
	google.golang.org/genproto/googleapis/api v0.0.0-20240701130421-f6361c86f094 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20240701130421-f6361c86f094 // indirect
	google.golang.org/grpc v1.65.0 // indirect
	google.golang.org/protobuf v1.34.2 // indirect
	gopkg.in/go-playground/validator.v9 v9.30.2 // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
	gopkg.in/ini.v1 v1.67.0 // indirect
	gopkg.in/natefinch/lumberjack.v2 v2.2.1 // indirect
	gopkg.in/yaml.v2 v2.4.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
	k8s.io/api v0.29.9 // indirect
	k8s.io/apiextensions-apiserver v0.29.9 // indirect
	k8s.io/apimachinery v0.29.9 // indirect
	k8s.io/apiserver v0.29.9 // indirect
	k8s.io/client-go v0.29.9 // indirect
	k8s.io/component-base v0.29.9 // indirect
	k8s.io/component-helpers v0.29.9 // indirect
	k8s.io/klog/v2 v2.120.1 // indirect
	k8s.io/kube-openapi v0.0.0-20231010175941-2dd684a91f00 // indirect
	k8s.io/kubernetes v1.29.9 // indirect
	k8s.io/utils v0.0.0-20240310230437-4693a0247e57 // indirect
	modernc.org/memory v1.7.2 // indirect
	sigs.k8s.io/json v0.0.0-20221116044647-bc3834ca7abd // indirect
	sigs.k8s.io/knftables v0.0.15 // indirect
	sigs.k8s.io/network-policy-api v0.1.5 // indirect
	sigs.k8s.io/structured-merge-diff/v4 v4.4.1 // indirect
	sigs.k8s.io/yaml v1.4.0 // indirect
)

replace (
	github.com/projectcalico/api => github.com/projectcalico/api v0.0.0-20241029214344-edb6f699d767
	k8s.io/api => k8s.io/api v0.29.9
	k8s.io/apiextensions-apiserver => k8s.io/apiextensions-apiserver v0.29.9
	k8s.io/apimachinery => k8s.io/apimachinery v0.29.9
	k8s.io/apiserver => k8s.io/apiserver v0.29.9
	k8s.io/cli-runtime => k8s.io/cli-runtime v0.29.9
	k8s.io/client-go => k8s.io/client-go v0.29.9
	k8s.io/cloud-provider => k8s.io/cloud-provider v0.29.9
	k8s.io/cluster-bootstrap => k8s.io/cluster-bootstrap v0.29.9
	k8s.io/code-generator => k8s.io/code-generator v0.29.9
	k8s.io/component-base => k8s.io/component-base v0.29.9
	k8s.io/component-helpers => k8s.io/component-helpers v0.29.9
	k8s.io/controller-manager => k8s.io/controller-manager v0.29.9
	k8s.io/cri-api => k8s.io/cri-api v0.29.9
	k8s.io/csi-translation-lib => k8s.io/csi-translation-lib v0.29.9
	k8s.io/endpointslice => k8s.io/endpointslice v0.29.9
	k8s.io/kube-aggregator => k8s.io/kube-aggregator v0.29.9
	k8s.io/kube-controller-manager => k8s.io/kube-controller-manager v0.29.9
	k8s.io/kube-proxy => k8s.io/kube-proxy v0.29.9
	k8s.io/kube-scheduler => k8s.io/kube-scheduler v0.29.9
	k8s.io/kubectl => k8s.io/kubectl v0.29.9
	k8s.io/kubelet => k8s.io/kubelet v0.29.9
	k8s.io/kubernetes => k8s.io/kubernetes v1.29.9
	k8s.io/legacy-cloud-providers => k8s.io/legacy-cloud-providers v0.29.9
	k8s.io/metrics => k8s.io/metrics v0.29.9
	k8s.io/mount-utils => k8s.io/mount-utils v0.29.9
	k8s.io/pod-security-admission => k8s.io/pod-security-admission v0.29.9
	k8s.io/sample-apiserver => k8s.io/sample-apiserver v0.29.9
	sigs.k8s.io/knftables => sigs.k8s.io/knftables v0.0.17-0.20240627140917-8d2660d78107
)
